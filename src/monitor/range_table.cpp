#include "monitor/range_table.h"

namespace mspti::detail {

bool OpenRangeTable::add(const MarkerData &half, bool is_start, RangeMarkerData &out, uint64_t &evicted) {
    Key key{half.id, static_cast<int32_t>(half.source_kind)};
    auto found = index_.find(key);
    if (found != index_.end()) {
        Entry &e = *found->second;
        if (is_start ? e.has_end : e.has_start) {
            const MarkerData &start = is_start ? half : e.start;
            out.kind = MsptiActivityKind::MSPTI_ACTIVITY_KIND_MARKER;
            out.source_kind = start.source_kind;
            out.id = start.id;
            out.object_id = start.object_id;
            out.name = start.name;
            out.domain = start.domain;
            out.start = start.timestamp;
            out.end = is_start ? e.end_ts : half.timestamp;
            order_.erase(found->second);
            index_.erase(found);
            return true;
        }
        // The same half again (msPTI would overwrite it too).
        if (is_start)
            e.start = half;
        else
            e.end_ts = half.timestamp;
        return false;
    }
    while (index_.size() >= capacity_) {
        index_.erase(order_.front().key);
        order_.pop_front();
        ++evicted;
    }
    Entry e;
    e.key = key;
    if (is_start) {
        e.has_start = true;
        e.start = half;
    } else {
        e.has_end = true;
        e.end_ts = half.timestamp;
    }
    order_.push_back(std::move(e));
    index_.emplace(key, std::prev(order_.end()));
    return false;
}

}  // namespace mspti::detail
