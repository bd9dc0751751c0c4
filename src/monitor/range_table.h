// Pairs range starts and ends by (id, source kind) into RangeMarkerData, in a table of bounded
// size: when it is full the oldest open half is evicted (and counted), so unpaired halves
// never accumulate. Used only on the delivery thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <unordered_map>

#include "mspti/monitor_types.h"


namespace mspti::detail {

class OpenRangeTable {
public:
    explicit OpenRangeTable(size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

    /**
     * Adds one half. Returns true, with `out` filled, when it completes a range; otherwise the
     * half is kept (replacing an earlier half of the same end and key) and `evicted` counts
     * halves pushed out to keep the table within capacity.
     */
    bool add(const MarkerData &half, bool is_start, RangeMarkerData &out, uint64_t &evicted);

    /** Open halves held now. */
    size_t size() const { return index_.size(); }

private:
    struct Key {
        uint64_t id;
        int32_t source;
        bool operator==(const Key &other) const { return id == other.id && source == other.source; }
    };
    struct KeyHash {
        size_t operator()(const Key &k) const {
            return std::hash<uint64_t>()(k.id * 2 + static_cast<uint64_t>(k.source));
        }
    };
    struct Entry {
        Key key;
        bool has_start = false;
        bool has_end = false;
        MarkerData start;  // the start record (name, domain, object id, timestamp)
        uint64_t end_ts = 0;  // the end record's timestamp
    };

    size_t capacity_;
    std::list<Entry> order_;  // oldest first
    std::unordered_map<Key, std::list<Entry>::iterator, KeyHash> index_;
};

}  // namespace mspti::detail
