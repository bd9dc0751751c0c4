#include "filter.h"

#include <cstring>

#include "common/range_pairs.h"

namespace mspti_trace {

namespace {

constexpr uint32_t kMark =
    MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS | MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS_WITH_DEVICE;
constexpr uint32_t kStart = MSPTI_ACTIVITY_FLAG_MARKER_START | MSPTI_ACTIVITY_FLAG_MARKER_START_WITH_DEVICE;
constexpr uint32_t kEnd = MSPTI_ACTIVITY_FLAG_MARKER_END | MSPTI_ACTIVITY_FLAG_MARKER_END_WITH_DEVICE;
constexpr size_t kKeptIntervals = 256;  // older capture ranges cannot matter any more
constexpr size_t kKeptLaunches = size_t{1} << 18;  // launches remembered for their device work
constexpr size_t kKeptCollectives = 64;  // per stream: an HCCL record comes within a few ops of its own

uint64_t range_key(const msptiActivityMarker &m) {
    return mspti::common::range_key(m.id, m.sourceKind == MSPTI_ACTIVITY_SOURCE_KIND_DEVICE);
}

}  // namespace

Filter::Filter(const Config &config)
    : begin_(config.window_begin), end_(config.window_end), capture_(config.capture_range) {
    for (msptiActivityKind k : config.kinds)
        if (k == MSPTI_ACTIVITY_KIND_COMMUNICATION) join_hccl_ = !capture_.empty();
}

bool Filter::in_capture(uint64_t t) const {
    if (capture_.empty()) return true;
    for (auto it = intervals_.rbegin(); it != intervals_.rend(); ++it)
        if (t >= it->first && t <= it->second) return true;
    return false;
}

bool Filter::keep(const Record &r) {
    bool k;
    if (join_hccl_ && r.kind() == MSPTI_ACTIVITY_KIND_HCCL) {
        int d = hccl_decision(r);
        if (d < 0) {
            held_hccl_.push_back(HeldHccl{r, 0, -1});
            return false;  // decided in release()
        }
        k = d == 1 && in_window(r.start);
    } else {
        k = decide(r);
    }
    if (!k) ++filtered_;
    return k;
}

int Filter::hccl_decision(const Record &r) {
    auto it = collectives_.find(stream_key(r.u.hccl.ds.deviceId, r.u.hccl.ds.streamId));
    if (it == collectives_.end()) return -1;
    for (auto c = it->second.rbegin(); c != it->second.rend(); ++c)
        if (encloses(r, c->start, c->end)) return c->launched_inside ? 1 : 0;
    return -1;
}

void Filter::note_collective(const Record &r, bool launched_inside) {
    const msptiActivityCommunication &c = r.u.comm;
    for (HeldHccl &h : held_hccl_) {
        const msptiActivityHccl &x = h.record.u.hccl;
        if (h.decision < 0 && x.ds.deviceId == c.ds.deviceId && x.ds.streamId == c.ds.streamId &&
            encloses(h.record, r.start, r.end)) {
            h.decision = launched_inside ? 1 : 0;
            return;
        }
    }
    // Its HCCL record has not come yet (or never will: an op without one, such as a barrier).
    std::deque<Collective> &recent = collectives_[stream_key(c.ds.deviceId, c.ds.streamId)];
    recent.push_back(Collective{r.start, r.end, launched_inside});
    if (recent.size() > kKeptCollectives) recent.pop_front();
}

void Filter::release(uint64_t now, bool final, std::vector<Record> &out) {
    out.clear();
    std::deque<HeldHccl> waiting;
    for (size_t i = 0; i < held_hccl_.size(); ++i) {
        HeldHccl &h = held_hccl_[i];
        if (h.since == 0) h.since = now;  // arrived during this window
        bool kept;
        bool full = waiting.size() + (held_hccl_.size() - i) > kMaxHeldHccl;
        if (h.decision >= 0) {
            kept = h.decision == 1 && in_window(h.record.start);
        } else if (final || now >= h.since + kHcclWaitNs || full) {
            // Its collective never came (COMMUNICATION records lost, or none for this op): by its own start.
            kept = in_capture(h.record.start) && in_window(h.record.start);
        } else {
            waiting.push_back(h);
            continue;
        }
        if (kept)
            out.push_back(h.record);
        else
            ++filtered_;
    }
    held_hccl_.swap(waiting);
}

// Host records by their start; device work by its launch (the first host record with its
// correlation id), since it may run long after the range ended. Device work whose launch was
// not seen (API kinds off, or launched before the trace) falls back to its own start.
bool Filter::captured(const Record &r) {
    if (capture_.empty()) return true;
    uint64_t c = correlation_id(r);
    LaunchSide side = launch_side(r.kind());
    bool inside = in_capture(r.start);
    if (side == LaunchSide::kNone) return inside;
    if (c == MSPTI_INVALID_CORRELATION_ID) {
        if (join_hccl_ && r.kind() == MSPTI_ACTIVITY_KIND_COMMUNICATION) note_collective(r, inside);
        return inside;
    }
    if (side == LaunchSide::kHost) {
        // A later call reusing the id (aclrtSynchronizeDevice takes the thread's latest) does not
        // move its launch.
        if (launches_.emplace(c, inside).second) {
            launch_order_.push_back(c);
            if (launch_order_.size() > kKeptLaunches) {
                launches_.erase(launch_order_.front());
                launch_order_.pop_front();
            }
        }
        return inside;
    }
    auto it = launches_.find(c);
    bool launched_inside = it != launches_.end() ? it->second : inside;
    if (join_hccl_ && r.kind() == MSPTI_ACTIVITY_KIND_COMMUNICATION) note_collective(r, launched_inside);
    return launched_inside;
}

bool Filter::decide(const Record &r) {
    if (r.kind() != MSPTI_ACTIVITY_KIND_MARKER) {
        bool inside = captured(r);  // first: it notes every launch, kept or not
        return inside && in_window(r.start);
    }
    const msptiActivityMarker &m = r.u.marker;
    uint32_t flag = static_cast<uint32_t>(m.flag);
    bool host = m.sourceKind == MSPTI_ACTIVITY_SOURCE_KIND_HOST;
    if (flag & kStart) {
        if (!capture_.empty() && host && m.name != nullptr && capture_ == m.name) {
            if (intervals_.size() >= kKeptIntervals) {
                // Forget the oldest closed range; open ones stay.
                for (size_t i = 0; i < intervals_.size(); ++i) {
                    if (intervals_[i].second == UINT64_MAX) continue;
                    intervals_.erase(intervals_.begin() + static_cast<long>(i));
                    for (auto &entry : open_captures_)
                        if (entry.second > i) --entry.second;
                    break;
                }
            }
            open_captures_[m.id] = intervals_.size();
            intervals_.emplace_back(m.timestamp, UINT64_MAX);
        }
        bool k = in_window(m.timestamp) && in_capture(m.timestamp);
        if (k) kept_starts_.insert(range_key(m));
        return k;
    }
    if (flag & kEnd) {
        if (host) {
            auto it = open_captures_.find(m.id);
            if (it != open_captures_.end()) {
                intervals_[it->second].second = m.timestamp;
                open_captures_.erase(it);
            }
        }
        return kept_starts_.erase(range_key(m)) != 0;  // an end follows its start
    }
    (void)kMark;
    return in_window(m.timestamp) && in_capture(m.timestamp);
}

}  // namespace mspti_trace
