// Pairs range starts and ends by (id, source kind) into RangeMarkerData, in a table of bounded
// size (common/range_pairs.h, shared with mspti-trace): when it is full the oldest open half is
// evicted (and counted), so unpaired halves never accumulate. Used only on the delivery thread.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/range_pairs.h"
#include "mspti/monitor_types.h"


namespace mspti::detail {

class OpenRangeTable {
public:
    explicit OpenRangeTable(size_t capacity) : pairs_(capacity) {}

    /**
     * Adds one half. Returns true, with `out` filled, when it completes a range; otherwise the
     * half is kept (replacing an earlier half of the same end and key) and `evicted` counts
     * halves pushed out to keep the table within capacity.
     */
    bool add(const MarkerData &half, bool is_start, RangeMarkerData &out, uint64_t &evicted);

    /** Open halves held now. */
    size_t size() const { return pairs_.size(); }

private:
    common::RangePairs<MarkerData> pairs_;  // a start keeps its record
};

}  // namespace mspti::detail
