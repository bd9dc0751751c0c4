// What the timeline hands to a file format: tracks, slices in nesting order, instants, counters,
// the raw records kept by the filters, and msPTI's counters. One sink per process, used only
// by the writer thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "mspti/mspti_ext.h"
#include "record.h"

namespace mspti_trace {

struct Arg {
    enum Type : uint8_t { kUint, kInt, kDouble, kString } type;
    const char *name;  // a string literal: sinks may key on the pointer
    union {
        uint64_t u;
        int64_t i;
        double d;
        const char *s;
    };
};

struct Track {
    enum Kind : uint8_t { kProcess, kThread, kDevice, kStream, kComm, kCounter, kLane } kind;
    uint32_t index;  // 1.. in order of first use; the pftrace uuid is pid << 32 | index
    uint32_t parent;  // index of the parent track; 0 for the process track
    uint32_t pid;
    uint64_t tid;  // kThread only
    bool bytes;  // kCounter: the value is in bytes
    std::string name;
};

struct Slice {
    static constexpr int kMaxArgs = 10;
    // Slice s{} zeroes all; a default-initialized one leaves the args (most of its 300 bytes)
    // unwritten, for the one per record built in place by the timeline, which sets every other field.
    uint64_t start, end;
    uint64_t flow;  // the first of its flow ids (flow, flow + 1, ...)
    uint32_t nflows;  // 0: none; a launching call's slice has one per device slice it launched
    uint64_t seq;
    const char *name;
    const char *category;  // a string literal: sinks may key on the pointer
    uint32_t track;
    uint8_t nargs;
    Arg args[kMaxArgs];

    void add_uint(const char *n, uint64_t v) {
        Arg &a = args[nargs++];
        a.type = Arg::kUint, a.name = n, a.u = v;
    }
    void add_int(const char *n, int64_t v) {
        Arg &a = args[nargs++];
        a.type = Arg::kInt, a.name = n, a.i = v;
    }
    void add_double(const char *n, double v) {
        Arg &a = args[nargs++];
        a.type = Arg::kDouble, a.name = n, a.d = v;
    }
    void add_string(const char *n, const char *v) {
        Arg &a = args[nargs++];
        a.type = Arg::kString, a.name = n, a.s = v;
    }
};

struct Stats {
    msptiExtActivityStats kinds[MSPTI_ACTIVITY_KIND_COUNT];  // msPTI's counters, by kind
    uint64_t filtered = 0;  // left out by the time window / capture range
    uint64_t unmatched_ranges = 0;  // range starts without an end
    bool per_kind = true;  // false: libmspti has no msptiExtActivityGetStats, `kinds` are unknown
    // Records not in the file because their window could not be written (disk full, EIO); the
    // writer has added them to kinds[].dropped too, so that every reader counts them as dropped.
    uint64_t lost = 0;
    uint64_t dropped_total() const {
        uint64_t n = 0;
        for (const auto &k : kinds) n += k.dropped;
        return n;
    }
};

class Sink {
public:
    virtual ~Sink() = default;
    // Creates the file; false with a message in `error`.
    virtual bool open(const std::string &path, std::string &error) = 0;
    virtual void track(const Track &t) = 0;
    virtual void begin(const Slice &s) = 0;  // in nesting order per track; end() follows
    virtual void end(uint32_t track, uint64_t ts) = 0;
    virtual void instant(const Slice &s) = 0;
    virtual void counter(uint32_t track, const char *name, uint64_t ts, int64_t value) = 0;
    virtual void record(const Record &) {}  // every record the filters kept, in start order
    // A paired mstx range.
    virtual void range(const Record & /*start*/, uint64_t /*end*/) {}
    virtual void stats(const Stats &s, uint64_t ts, bool final) = 0;
    virtual void flush() = 0;  // the window is complete: put it on disk
    virtual void close() = 0;

    // Write failures (docs/trace.md, "Write failures"). A window that cannot be written is left
    // out whole, so the file stays readable; the writer says how many records of each kind the
    // window holds before ending it, and asks afterwards whether it was lost.
    void set_window_records(const uint64_t (&per_kind)[MSPTI_ACTIVITY_KIND_COUNT]) {
        for (int k = 0; k < MSPTI_ACTIVITY_KIND_COUNT; ++k) window_records_[k] = per_kind[k];
    }
    // Records held for a flow's other side, and range halves held for their other half (Timeline),
    // are written in a later window than the one they came in: `delta[k]` more records of kind k came in this window than its slices hold
    // (negative: earlier ones released into it). A sink that writes each record as it comes
    // (SQLite's rows) writes them in the window they came in.
    void move_window_records(const int64_t (&delta)[MSPTI_ACTIVITY_KIND_COUNT]) {
        if (writes_records_as_they_come()) return;
        for (int k = 0; k < MSPTI_ACTIVITY_KIND_COUNT; ++k)
            window_records_[k] = static_cast<uint64_t>(static_cast<int64_t>(window_records_[k]) - delta[k]);
    }
    virtual bool writes_records_as_they_come() const { return false; }
    // The records of kind k the window holds (what a lost window loses).
    uint64_t window_records(int k) const { return window_records_[k]; }
    bool take_window_lost() {
        bool lost = window_lost_;
        window_lost_ = false;
        return lost;
    }
    // False when the final stats never reached the file (the counts of the loss are then only
    // on stderr and with the launcher).
    bool final_stats_written() const { return final_stats_written_; }
    // The writer's progress count (Writer::progress_): bumped every 1,024 events written, so that
    // the wait at exit goes on while a large last window is being written.
    void set_progress(std::atomic<uint64_t> *progress) { progress_ = progress; }

protected:
    void progressed() {
        if (progress_ != nullptr && (++events_ & 1023) == 0) progress_->fetch_add(1, std::memory_order_relaxed);
    }
    // The stats with this window's records counted as lost: the last words of a file whose last
    // window failed.
    Stats with_window_lost(const Stats &s) const {
        Stats out = s;
        for (int k = 0; k < MSPTI_ACTIVITY_KIND_COUNT; ++k) {
            out.kinds[k].dropped += window_records_[k];
            out.lost += window_records_[k];
        }
        return out;
    }
    uint64_t window_records_[MSPTI_ACTIVITY_KIND_COUNT] = {};
    bool window_lost_ = false;
    bool final_stats_written_ = true;

private:
    std::atomic<uint64_t> *progress_ = nullptr;
    uint64_t events_ = 0;
};

}  // namespace mspti_trace
