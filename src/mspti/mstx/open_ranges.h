// Open ranges: range id -> the stream it started on. A fixed, lock-free open-addressing
// table, so that starting and ending ranges never takes a lock or allocates. Ranges that are
// never ended cannot fill it: when a range finds no free slot near its home, the oldest open
// range there is evicted (and counted), so memory stays bounded and new ranges keep working.
#pragma once

#include <cstdint>

namespace mspti::mstx {

// Remembers an open range, evicting the oldest open range of its neighbourhood if needed.
// False only if `id` is not a valid range id or concurrent evictions kept it from a slot (the
// end will then be unknown; the caller counts it).
bool range_open(uint64_t id, void *stream);

// Forgets an open range; false if `id` is not open (0, never started, ended or evicted).
// `stream` (may be NULL) receives its start stream.
bool range_close(uint64_t id, void **stream);

struct RangeTableStats {
    uint64_t open;  // ranges tracked now (started, neither ended nor evicted)
    uint64_t evicted;  // open ranges forgotten to make room, since the process started
    uint64_t capacity;  // slots of the table
};

// Counts of the table (scans it: for statistics, not for hot paths).
RangeTableStats range_stats();

}  // namespace mspti::mstx
