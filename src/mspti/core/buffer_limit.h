// The limit on client buffers in flight (requested from the client and not yet handed back
// through the complete callback) and what happens past it: records are dropped (counted), or,
// under the lossless policy, producers wait a bounded time for a buffer to come back.
// The limit counts bytes (256 MiB by default: a 4 KB- and an 8 MB-buffer client get the same
// room) and, if one is set, buffers; whichever is reached first applies.
// Settings come from msptiExtActivitySetBufferLimit / SetBufferBytesLimit or, at load, from the
// environment.
#pragma once

#include <cstddef>
#include <cstdint>

#include "mspti/mspti_ext.h"

namespace mspti::buffer_limit {

constexpr size_t kMaxMaxInFlight = 1u << 20;
constexpr size_t kDefaultMaxInFlight = kMaxMaxInFlight;  // no count: the bytes decide
constexpr size_t kDefaultMaxBytesInFlight = size_t{256} << 20;  // msPTI Python's pool: 32 x 8 MiB
constexpr size_t kMinMaxBytesInFlight = size_t{1} << 12;
constexpr size_t kMaxMaxBytesInFlight = size_t{1} << 40;
constexpr uint32_t kDefaultWaitMs = 1000;
constexpr uint32_t kMaxWaitMs = 3600u * 1000;

size_t max_in_flight();
size_t max_bytes_in_flight();
msptiExtBufferLimitPolicy policy();
// How long one producer waits for a buffer under the lossless policy before dropping.
uint32_t wait_ms();

// Checked by the caller (bad values are rejected there).
void set(size_t max_in_flight, msptiExtBufferLimitPolicy policy, uint32_t wait_ms);
void set_max_bytes(size_t max_bytes_in_flight);

}  // namespace mspti::buffer_limit
