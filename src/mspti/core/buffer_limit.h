// The limit on client buffers in flight (requested from the client and not yet handed back
// through the complete callback) and what happens past it: records are dropped (counted), or,
// under the lossless policy, producers wait a bounded time for a buffer to come back.
// Settings come from msptiExtActivitySetBufferLimit or, at load, from the environment.
#pragma once

#include <cstddef>
#include <cstdint>

#include "mspti/mspti_ext.h"

namespace mspti::buffer_limit {

constexpr size_t kDefaultMaxInFlight = 32;  // with 8 MiB buffers: 256 MiB, msPTI Python's pool
constexpr size_t kMaxMaxInFlight = 1u << 20;
constexpr uint32_t kDefaultWaitMs = 1000;
constexpr uint32_t kMaxWaitMs = 3600u * 1000;

size_t max_in_flight();
msptiExtBufferLimitPolicy policy();
// How long one producer waits for a buffer under the lossless policy before dropping.
uint32_t wait_ms();

// Checked by the caller (bad values are rejected there).
void set(size_t max_in_flight, msptiExtBufferLimitPolicy policy, uint32_t wait_ms);

}  // namespace mspti::buffer_limit
