#include "timeline.h"

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "derived.h"
#include "nearly_sorted.h"

namespace mspti_trace {

namespace {

constexpr uint32_t kMarkFlags =
    MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS | MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS_WITH_DEVICE;
constexpr uint32_t kStartFlags = MSPTI_ACTIVITY_FLAG_MARKER_START | MSPTI_ACTIVITY_FLAG_MARKER_START_WITH_DEVICE;
constexpr uint32_t kEndFlags = MSPTI_ACTIVITY_FLAG_MARKER_END | MSPTI_ACTIVITY_FLAG_MARKER_END_WITH_DEVICE;

constexpr uint64_t kHorizonNs = 4ull * 1000000000ull;  // how late a slice may come and still be checked
static_assert(FlowLinks::kWaitNs < kHorizonNs, "a slice held for its flow is still checked for nesting");
constexpr size_t kHostNamesKept = size_t{1} << 16;  // host range names kept for their device halves

const char *or_empty(const char *s) { return s != nullptr ? s : ""; }

std::string thread_name(uint32_t tid) {
    std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/comm");
    std::string comm;
    if (in && std::getline(in, comm) && !comm.empty()) return comm + " " + std::to_string(tid);
    return "thread " + std::to_string(tid);
}

}  // namespace

Timeline::Timeline(const Config &config, uint32_t pid, Sink &sink) : config_(config), pid_(pid), sink_(sink) {
    std::string name = config.rank >= 0 ? "rank " + std::to_string(config.rank) + " \xC2\xB7 pid " + std::to_string(pid)
                                        : "pid " + std::to_string(pid);
    new_track(Track::kProcess, 0, name);
    // Flows need both ends: with API calls or device work not traced, none is written.
    bool host = false, device = false;
    for (msptiActivityKind k : config.kinds) {
        if (!flow_slice(k)) continue;
        (launch_side(k) == LaunchSide::kDevice ? device : host) = true;
    }
    link_flows_ = host && device;
}

uint32_t Timeline::new_track(Track::Kind kind, uint32_t parent, std::string name, uint64_t tid, bool bytes) {
    Track t{kind, next_index_++, parent, pid_, tid, bytes, std::move(name)};
    tracks_.push_back(t);
    sink_.track(tracks_.back());
    return t.index;
}

uint32_t Timeline::thread_track(uint32_t pid, uint32_t tid) {
    if (last_thread_track_ != 0 && last_thread_ == std::make_pair(pid, tid)) return last_thread_track_;
    auto it = threads_.find({pid, tid});
    uint32_t idx;
    if (it != threads_.end()) {
        idx = it->second;
    } else {
        idx = new_track(Track::kThread, 1, thread_name(tid), tid);
        threads_.emplace(std::make_pair(pid, tid), idx);
    }
    last_thread_ = {pid, tid};
    last_thread_track_ = idx;
    return idx;
}

uint32_t Timeline::device_track(uint32_t device) {
    auto it = devices_.find(device);
    if (it != devices_.end()) return it->second;
    uint32_t idx = new_track(Track::kDevice, 1, "device " + std::to_string(device));
    devices_.emplace(device, idx);
    return idx;
}

uint32_t Timeline::stream_track(uint32_t device, uint32_t stream) {
    if (last_stream_track_ != 0 && last_stream_ == std::make_pair(device, stream)) return last_stream_track_;
    auto it = streams_.find({device, stream});
    uint32_t idx;
    if (it != streams_.end()) {
        idx = it->second;
    } else {
        uint32_t parent = device_track(device);
        std::string name = stream == MSPTI_INVALID_STREAM_ID ? "stream sync" : "stream " + std::to_string(stream);
        idx = new_track(Track::kStream, parent, std::move(name));
        streams_.emplace(std::make_pair(device, stream), idx);
    }
    last_stream_ = {device, stream};
    last_stream_track_ = idx;
    return idx;
}

uint32_t Timeline::comm_track(const char *comm) {
    std::string key = or_empty(comm);
    auto it = comms_.find(key);
    if (it != comms_.end()) return it->second;
    uint32_t idx = new_track(Track::kComm, 1, "comm " + key);
    comms_.emplace(key, idx);
    return idx;
}

uint32_t Timeline::memory_track(uint32_t device) {
    auto it = memory_.find(device);
    if (it != memory_.end()) return it->second;
    uint32_t idx = new_track(Track::kCounter, 1, "device " + std::to_string(device) + " memory", 0, true);
    memory_.emplace(device, idx);
    return idx;
}

uint32_t Timeline::marker_track(const msptiActivityMarker &m) {
    if (m.sourceKind == MSPTI_ACTIVITY_SOURCE_KIND_DEVICE)
        return stream_track(m.objectId.ds.deviceId, m.objectId.ds.streamId);
    return thread_track(m.objectId.pt.processId, m.objectId.pt.threadId);
}

const char *Timeline::keep_string(std::string s) {
    strings_.push_back(std::move(s));
    return strings_.back().c_str();
}

// Unique per process and across the processes of a run (merge renames pids, keeping the low bits).
uint64_t Timeline::flow_id(uint64_t number) const {
    return (static_cast<uint64_t>(pid_) << 40) | (number & ((1ull << 40) - 1));
}

Slice Timeline::slice(uint32_t track, const Record &r, const char *name, const char *category) {
    Slice s{};
    s.start = r.start;
    s.end = r.end;
    s.seq = r.seq;
    s.name = name;
    s.category = category;
    s.track = track;
    return s;
}

Slice &Timeline::put(uint32_t track, const Record &r, const char *name, const char *category) {
    // Elements of an unordered_map stay put: the pointer survives later insertions.
    if (last_base_ == nullptr || last_base_->track != track) last_base_ = &bases_[track];
    Base &b = *last_base_;
    if (b.lanes.empty()) {
        b.track = track;
        b.lanes.push_back(Lane{track, 0, {}, {}, 0, {}, 0, {}});
    }
    // Built where it is kept: a Slice is a few hundred bytes.
    Slice &s = b.window.push_unset();
    s.start = r.start;
    s.end = r.end;
    s.flow = 0;
    s.nflows = 0;
    s.seq = r.seq;
    s.name = name;
    s.category = category;
    s.track = track;
    s.nargs = 0;
    return s;
}

// Each kind's track, slice name, flow and arguments: generated from schema/records.py.
#include "timeline_kinds.inc"

void Timeline::put_slice(const Record &r, uint64_t flow, uint32_t count) {
    if (!add_slice(r) || count == 0) return;
    // put() left last_base_ on the slice's base, the slice last in its window.
    Slice &s = last_base_->window[last_base_->window.size() - 1];
    s.flow = flow_id(flow);
    s.nflows = count;
}

void Timeline::add(const Record &r) {
    sink_.record(r);
    if (flow_slice(r.kind())) {
        bool held = link_flows_ && correlation_id(r) != MSPTI_INVALID_CORRELATION_ID &&
                    links_.hold(r, launch_side(r.kind()) == LaunchSide::kDevice);
        if (held)
            ++held_delta_[r.kind()];
        else
            put_slice(r);
        return;
    }
    if (add_slice(r)) return;
    switch (r.kind()) {
    case MSPTI_ACTIVITY_KIND_MEMORY: {
        const msptiActivityMemory &m = r.u.memory;
        int64_t &sum = memory_in_use_[m.deviceId];
        sum += memory_delta(r);
        uint32_t track = memory_track(m.deviceId);
        sink_.counter(track, tracks_[track - 1].name.c_str(), r.start, sum);
        break;
    }
    case MSPTI_ACTIVITY_KIND_MARKER: add_marker(r); break;
    default: break;
    }
}

void Timeline::note_host_name(const msptiActivityMarker &m) {
    if (m.name == nullptr || *m.name == '\0') return;
    if (!host_names_.emplace(m.id, m.name).second) return;
    host_name_order_.push_back(m.id);
    if (host_name_order_.size() > kHostNamesKept) {
        host_names_.erase(host_name_order_.front());
        host_name_order_.pop_front();
    }
}

const char *Timeline::host_name(const msptiActivityMarker &m) const {
    if (m.name != nullptr && *m.name != '\0') return m.name;
    auto it = host_names_.find(m.id);
    return it != host_names_.end() ? it->second : m.name;
}

void Timeline::add_marker(const Record &in) {
    // A device half carries no name of its own: it takes its host half's, which comes first
    // (the host marks before the device reaches the mark), in every format.
    Record r = in;
    msptiActivityMarker &named = r.u.marker;
    uint32_t flag = static_cast<uint32_t>(named.flag);
    if (named.sourceKind == MSPTI_ACTIVITY_SOURCE_KIND_DEVICE)
        named.name = host_name(named);
    else if (flag & (kStartFlags | kMarkFlags))
        note_host_name(named);
    const msptiActivityMarker &m = r.u.marker;
    uint64_t key = mspti::common::range_key(m.id, m.sourceKind == MSPTI_ACTIVITY_SOURCE_KIND_DEVICE);
    if (flag & kMarkFlags) {
        Slice s = slice(marker_track(m), r, or_empty(m.name), "marker");
        add_args(s, r);
        sink_.instant(s);
        return;
    }
    auto complete = [this](const Record &start, uint32_t track, uint64_t end) {
        const msptiActivityMarker &sm = start.u.marker;
        Slice &s = put(track, start, or_empty(sm.name), "marker");
        s.end = end < start.start ? start.start : end;
        add_args(s, start);
        sink_.range(start, s.end);
    };
    // A half waiting for its other one is written with it, in a later window: held, like a slice
    // waiting for its flow (held_delta_), so that a window lost meanwhile does not count it. The
    // same half again replaces the first, which is then never written.
    using Added = mspti::common::RangePairs<OpenRange>::Added;
    auto unbounded = [](const OpenRange *, uint64_t) {};
    Added added = Added::kReplaced;
    if (flag & kStartFlags) {
        uint32_t track = marker_track(m);
        uint64_t end = 0;
        added = ranges_.add_start(key, OpenRange{r, track}, end, unbounded);
        if (added == Added::kPaired) complete(r, track, end);
    } else if (flag & kEndFlags) {
        OpenRange start{};
        added = ranges_.add_end(key, m.timestamp, start, unbounded);
        if (added == Added::kPaired) complete(start.start, start.track, m.timestamp);
    }
    if (added == Added::kPaired)
        --held_delta_[MSPTI_ACTIVITY_KIND_MARKER];
    else if (added == Added::kOpened)
        ++held_delta_[MSPTI_ACTIVITY_KIND_MARKER];
}

// A slice that starts before the lane's latest start (its parent arrived after its children,
// in a later window, or it waited for its flow's other side): it fits if it nests with every
// slice of the lane it overlaps. Both checks look only at slices that start or end inside it.
bool Timeline::fits_late(const Lane &lane, const Slice &s) {
    auto first = lane.placed.begin() + static_cast<long>(lane.placed_head);
    auto at = std::lower_bound(first, lane.placed.end(), std::make_pair(s.start, uint64_t{0}));
    for (auto it = at; it != lane.placed.end() && it->first < s.end; ++it)
        if (it->second > s.end && it->first != s.start) return false;
    // One that started before it and ends inside it overlaps without nesting.
    auto from = std::upper_bound(lane.by_end.begin() + static_cast<long>(lane.by_end_head), lane.by_end.end(),
                                 std::make_pair(s.start, UINT64_MAX));
    for (auto it = from; it != lane.by_end.end() && it->first < s.end; ++it)
        if (it->second < s.start) return false;
    return true;
}

// Puts `s` on the first lane of its track where it nests with what that lane already holds.
void Timeline::place(Base &base, uint32_t index) {
    const Slice &s = base.window[index];
    for (size_t i = 0;; ++i) {
        if (i == base.lanes.size()) {
            const Track &t = tracks_[base.track - 1];
            uint32_t idx = new_track(Track::kLane, t.parent, t.name + " \xC2\xB7 lane " + std::to_string(i + 1));
            base.lanes.push_back(Lane{idx, 0, {}, {}, 0, {}, 0, {}});
        }
        Lane &lane = base.lanes[i];
        if (s.start < lane.max_start) {
            if (!fits_late(lane, s)) continue;
            if (s.end > lane.max_start) {
                // Still open at the frontier: it joins the stack of open slices, by its end.
                auto pos = std::find_if(lane.ends.begin(), lane.ends.end(), [&](uint64_t e) { return e < s.end; });
                lane.ends.insert(pos, s.end);
            }
        } else {
            size_t open = lane.ends.size();
            while (open > 0 && lane.ends[open - 1] <= s.start) --open;
            if (open > 0 && lane.ends[open - 1] < s.end) continue;  // overlaps without nesting
            lane.ends.resize(open);
            lane.ends.push_back(s.end);
            lane.max_start = s.start;
        }
        auto pair = std::make_pair(s.start, s.end);
        if (lane.placed.empty() || lane.placed.back() <= pair)
            lane.placed.push_back(pair);
        else
            lane.placed.insert(std::upper_bound(lane.placed.begin() + static_cast<long>(lane.placed_head),
                                                lane.placed.end(), pair),
                               pair);
        auto by_end = std::make_pair(s.end, s.start);
        if (lane.by_end.empty() || lane.by_end.back() <= by_end)
            lane.by_end.push_back(by_end);
        else
            lane.by_end.insert(std::upper_bound(lane.by_end.begin() + static_cast<long>(lane.by_end_head),
                                                lane.by_end.end(), by_end),
                               by_end);
        lane.window.push_back(index);
        return;
    }
}

// BEGIN/END events of one lane's window in nesting order.
void Timeline::emit(Base &base, Lane &lane) {
    std::vector<uint64_t> &stack = stack_;
    stack.clear();
    for (uint32_t index : lane.window) {
        Slice &s = base.window[index];
        s.track = lane.track;
        while (!stack.empty() && stack.back() <= s.start) {
            sink_.end(lane.track, stack.back());
            stack.pop_back();
        }
        sink_.begin(s);
        stack.push_back(s.end);
    }
    while (!stack.empty()) {
        sink_.end(lane.track, stack.back());
        stack.pop_back();
    }
    lane.window.clear();
}

void Timeline::end_window(const Stats &stats_in, uint64_t now, bool final) {
    // Launches whose both sides came, and records that waited long enough for theirs.
    links_.release(now, final, released_);
    for (const FlowLinks::Released &x : released_) {
        put_slice(x.record, x.flow, x.count);
        --held_delta_[x.record.kind()];
    }
    for (auto &entry : bases_) {
        Base &b = entry.second;
        if (b.window.empty()) continue;
        // Sorted through small keys: a Slice is a few hundred bytes.
        order_.resize(b.window.size());
        for (uint32_t i = 0; i < order_.size(); ++i) {
            const Slice &s = b.window[i];
            order_[i] = NestKey{s.start, ~s.end, s.seq, i};
        }
        sort_nearly_sorted(order_.begin(), order_.end());
        for (const NestKey &k : order_) place(b, k.index);
        for (Lane &lane : b.lanes) {
            emit(b, lane);
            // Late slices are checked against the last kHorizonNs only.
            uint64_t cutoff = lane.max_start > kHorizonNs ? lane.max_start - kHorizonNs : 0;
            while (lane.placed_head < lane.placed.size() && lane.placed[lane.placed_head].first < cutoff)
                ++lane.placed_head;
            if (lane.placed_head > 4096 && lane.placed_head * 2 > lane.placed.size()) {
                lane.placed.erase(lane.placed.begin(), lane.placed.begin() + static_cast<long>(lane.placed_head));
                lane.placed_head = 0;
            }
            while (lane.by_end_head < lane.by_end.size() && lane.by_end[lane.by_end_head].first < cutoff)
                ++lane.by_end_head;
            if (lane.by_end_head > 4096 && lane.by_end_head * 2 > lane.by_end.size()) {
                lane.by_end.erase(lane.by_end.begin(), lane.by_end.begin() + static_cast<long>(lane.by_end_head));
                lane.by_end_head = 0;
            }
        }
        b.window.clear();
    }
    if (final) {
        // Ranges that never ended: an instant at their start, so that nothing is left open.
        ranges_.for_each_open_start([this](const OpenRange &open) {
            const Record &r = open.start;
            Slice s = slice(open.track, r, keep_string(std::string(or_empty(r.u.marker.name)) + " (no end)"), "marker");
            add_args(s, r);
            sink_.instant(s);
            ++unmatched_;
            --held_delta_[MSPTI_ACTIVITY_KIND_MARKER];
        });
        ranges_.clear();  // ends whose start never came are left out
    }
    // What this window writes of each kind, against what came in it.
    sink_.move_window_records(held_delta_);
    for (int64_t &n : held_delta_) n = 0;
    Stats stats = stats_in;
    stats.unmatched_ranges = unmatched_;
    uint64_t dropped = stats.dropped_total();
    if (stats.per_kind && (dropped != last_dropped_ || (final && dropped_track_ == 0))) {  // unknown: no counter
        if (dropped_track_ == 0) dropped_track_ = new_track(Track::kCounter, 1, "dropped records");
        sink_.counter(dropped_track_, "dropped records", now, static_cast<int64_t>(dropped));
        last_dropped_ = dropped;
    }
    sink_.stats(stats, now, final);
    sink_.flush();
}

}  // namespace mspti_trace
