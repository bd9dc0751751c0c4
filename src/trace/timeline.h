// Turns kept records into the track layout of docs/trace.md: finds or creates each record's
// track, pairs mstx range starts with their ends, keeps the device-memory sum, and at the end
// of each flush window writes every track's slices in nesting order, moving a slice that would
// overlap without nesting to an overlap lane. A launch's flows join the API call to each piece of
// device work it launched (FlowLinks); a device-side mstx range or mark takes its host half's name.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "chunked.h"
#include "common/range_pairs.h"
#include "config.h"
#include "flow_links.h"
#include "record.h"
#include "sink.h"

namespace mspti_trace {

class Timeline {
public:
    Timeline(const Config &config, uint32_t pid, Sink &sink);
    // A record the filters kept; records come in start order.
    void add(const Record &r);
    // Writes the window's slices and the counters, then has the sink put them on disk.
    void end_window(const Stats &stats, uint64_t now, bool final);
    uint64_t unmatched_ranges() const { return unmatched_; }
    // A MEMORY record the filters left out: it still changes the memory in use.
    void note_memory(const Record &r) { memory_in_use_[r.u.memory.deviceId] += memory_delta(r); }
    void seed_memory(const std::map<uint32_t, int64_t> &in_use) { memory_in_use_ = in_use; }
    static int64_t memory_delta(const Record &r) {
        int64_t bytes = static_cast<int64_t>(r.u.memory.bytes);
        return r.u.memory.memoryOperationType == MSPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION ? bytes : -bytes;
    }

private:
    struct Lane {
        uint32_t track;
        uint64_t max_start = 0;
        std::vector<uint64_t> ends;  // ends of the slices still open at max_start, outermost first
        std::vector<std::pair<uint64_t, uint64_t>> placed;  // (start, end) of recent slices, by start
        size_t placed_head = 0;  // entries before it are forgotten
        // The same slices as (end, start), by end: a late slice checks only those ending inside it.
        std::vector<std::pair<uint64_t, uint64_t>> by_end;
        size_t by_end_head = 0;
        std::vector<uint32_t> window;  // this window's slices (indices into Base::window), in (start, -end) order
    };
    struct Base {
        uint32_t track;
        Chunked<Slice> window;  // this window's slices, in arrival order
        std::vector<Lane> lanes;  // lanes[0] is the track itself
    };
    struct OpenRange {
        Record start;
        uint32_t track;
    };

    uint32_t new_track(Track::Kind kind, uint32_t parent, std::string name, uint64_t tid = 0, bool bytes = false);
    uint32_t thread_track(uint32_t pid, uint32_t tid);
    uint32_t device_track(uint32_t device);
    uint32_t stream_track(uint32_t device, uint32_t stream);
    uint32_t comm_track(const char *comm);
    uint32_t memory_track(uint32_t device);
    uint32_t marker_track(const msptiActivityMarker &m);
    Slice slice(uint32_t track, const Record &r, const char *name, const char *category);
    // A new slice of this window on `track` (its base track), to fill in.
    Slice &put(uint32_t track, const Record &r, const char *name, const char *category);
    void add_marker(const Record &r);
    // Generated from the record schema (timeline_kinds.inc).
    bool add_slice(const Record &r);
    static bool flow_slice(msptiActivityKind kind);
    // The slice of `r`, with `count` flows numbered from `flow` (FlowLinks::Released).
    void put_slice(const Record &r, uint64_t flow = 0, uint32_t count = 0);
    // A device marker's name: its host half's (same id); the record's own when that is unknown.
    const char *host_name(const msptiActivityMarker &m) const;
    void note_host_name(const msptiActivityMarker &m);
    static void add_args(Slice &s, const Record &r);
    void place(Base &base, uint32_t index);
    static bool fits_late(const Lane &lane, const Slice &s);
    void emit(Base &base, Lane &lane);
    const char *keep_string(std::string s);
    uint64_t flow_id(uint64_t number) const;

    const Config &config_;
    uint32_t pid_;
    Sink &sink_;
    uint32_t next_index_ = 1;
    std::vector<Track> tracks_;  // by index - 1
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> threads_, streams_;
    std::map<uint32_t, uint32_t> devices_, memory_;
    std::map<std::string, uint32_t> comms_;
    std::unordered_map<uint32_t, Base> bases_;  // by track index
    mspti::common::RangePairs<OpenRange>
        ranges_;  // open halves, unbounded (a start without an end is written at the end)
    std::map<uint32_t, int64_t> memory_in_use_;
    bool link_flows_ = false;  // API and device kinds are both traced: flows can have both ends
    FlowLinks links_;
    std::vector<FlowLinks::Released> released_;
    // Of this window, per kind: records held in links_ minus records released from it (their
    // slices are written in another window than the one they came in: Sink::move_window_records).
    int64_t held_delta_[MSPTI_ACTIVITY_KIND_COUNT] = {};
    // Marker id -> its host half's name (the device half has none); the oldest are forgotten first.
    std::unordered_map<uint64_t, const char *> host_names_;
    std::deque<uint64_t> host_name_order_;
    std::deque<std::string> strings_;
    // Sorted through small keys, in nesting order: start, then the longer first, then arrival.
    struct NestKey {
        uint64_t start, neg_end, seq;
        uint32_t index;
        bool operator<(const NestKey &o) const {
            if (start != o.start) return start < o.start;
            if (neg_end != o.neg_end) return neg_end < o.neg_end;
            return seq < o.seq;
        }
    };
    std::vector<NestKey> order_;
    Base *last_base_ = nullptr;  // put()'s previous base: records come in runs on one track
    // The previous thread and stream lookups: records come in runs from one thread or stream.
    std::pair<uint32_t, uint32_t> last_thread_{UINT32_MAX, UINT32_MAX}, last_stream_{UINT32_MAX, UINT32_MAX};
    uint32_t last_thread_track_ = 0, last_stream_track_ = 0;
    std::vector<uint64_t> stack_;
    uint32_t dropped_track_ = 0;
    uint64_t last_dropped_ = 0;
    uint64_t unmatched_ = 0;
};

}  // namespace mspti_trace
