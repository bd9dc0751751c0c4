// Open ranges: range id -> the stream it started on. A fixed, lock-free open-addressing
// table, so that starting and ending ranges never takes a lock or allocates.
#pragma once

#include <cstdint>

namespace mspti::mstx {

// Remembers an open range. False if the table is full around its slot (the end will then
// be unknown and is counted as a dropped record).
bool range_open(uint64_t id, void *stream);

// Forgets an open range; false if `id` is not open. `stream` receives its start stream.
bool range_close(uint64_t id, void **stream);

}  // namespace mspti::mstx
