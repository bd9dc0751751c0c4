// The time window (--delay/--duration) and the capture range (--capture-range NAME): decides
// which records are written. Records must come in start order (markers first on ties).
// A capture range keeps what was launched inside it: host records by their start, device work
// (kernels, copies, collectives) by the launch with the same correlation id, however late it runs.
// An HCCL record carries no correlation id: it goes with the COMMUNICATION record of its op.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "config.h"
#include "record.h"

namespace mspti_trace {

class Filter {
public:
    static constexpr uint64_t kHcclWaitNs = 2000000000ull;  // how long an HCCL record waits for its op
    static constexpr size_t kMaxHeldHccl = size_t{1} << 16;  // HCCL records held at most; the oldest go first

    explicit Filter(const Config &config);
    // Whether to write `r`. False also for an HCCL record held for its collective (see release()).
    bool keep(const Record &r);
    // At a window's end (`now`, epoch ns): the HCCL records held whose op is decided now and kept,
    // and those that waited kHcclWaitNs (all at the end: `final`) and are kept by their own start.
    void release(uint64_t now, bool final, std::vector<Record> &out);
    uint64_t filtered() const { return filtered_; }
    size_t held() const { return held_hccl_.size(); }

private:
    // An op's HCCL record spans its device markers, which the stream runs around the op's tasks: it
    // encloses the op's COMMUNICATION record, on the same device and stream, and no other one.
    struct Collective {
        uint64_t start, end;
        bool launched_inside;  // its launch started inside a capture range
    };
    struct HeldHccl {
        Record record;
        uint64_t since;  // the window end by which it had arrived; 0: not yet known
        int8_t decision;  // -1: its collective not seen yet; else whether that was launched inside
    };
    static uint64_t stream_key(uint32_t device, uint32_t stream) { return (uint64_t{device} << 32) | stream; }
    static bool encloses(const Record &hccl, uint64_t start, uint64_t end) {
        return hccl.start <= start && end <= hccl.end;
    }
    bool in_window(uint64_t t) const { return t >= begin_ && t < end_; }
    bool in_capture(uint64_t t) const;
    bool decide(const Record &r);
    bool captured(const Record &r);
    // A COMMUNICATION record decided: the HCCL record of its op follows it.
    void note_collective(const Record &r, bool launched_inside);
    // An HCCL record: -1 when its collective has not come (then it is held).
    int hccl_decision(const Record &r);

    uint64_t begin_, end_;
    std::string capture_;
    std::vector<std::pair<uint64_t, uint64_t>> intervals_;  // capture ranges seen; open ones end at UINT64_MAX
    std::unordered_map<uint64_t, size_t> open_captures_;  // marker id -> index in intervals_
    // Ranges whose start was kept (common::range_key): their end is kept too. Not a pairing: the
    // filter only carries the start's decision to its end; the timeline pairs them.
    std::unordered_set<uint64_t> kept_starts_;
    // Correlation id -> whether the first host record carrying it (the launch) started inside a
    // capture range; the oldest ids are forgotten first.
    std::unordered_map<uint64_t, bool> launches_;
    std::deque<uint64_t> launch_order_;
    // With a capture range and COMMUNICATION traced: each stream's latest collectives, and the
    // HCCL records waiting for theirs (oldest first).
    bool join_hccl_ = false;
    std::unordered_map<uint64_t, std::deque<Collective>> collectives_;
    std::deque<HeldHccl> held_hccl_;
    uint64_t filtered_ = 0;
};

}  // namespace mspti_trace
