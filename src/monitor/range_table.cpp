#include "monitor/range_table.h"

namespace mspti::detail {

bool OpenRangeTable::add(const MarkerData &half, bool is_start, RangeMarkerData &out, uint64_t &evicted) {
    uint64_t key =
        common::range_key(half.id, half.source_kind == MsptiActivitySourceKind::MSPTI_ACTIVITY_SOURCE_KIND_DEVICE);
    auto count = [&evicted](const MarkerData *, uint64_t) { ++evicted; };
    MarkerData start;
    uint64_t end = 0;
    if (is_start) {
        if (pairs_.add_start(key, half, end, count) != common::RangePairs<MarkerData>::Added::kPaired) return false;
        start = half;
    } else {
        if (pairs_.add_end(key, half.timestamp, start, count) != common::RangePairs<MarkerData>::Added::kPaired)
            return false;
        end = half.timestamp;
    }
    out.kind = MsptiActivityKind::MSPTI_ACTIVITY_KIND_MARKER;
    out.source_kind = start.source_kind;
    out.id = start.id;
    out.object_id = start.object_id;
    out.name = std::move(start.name);
    out.domain = std::move(start.domain);
    out.start = start.timestamp;
    out.end = end;
    return true;
}

}  // namespace mspti::detail
