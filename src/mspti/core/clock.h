// The timestamp clock of every record: nanoseconds since the Unix epoch.
//
// Reading it is cheap: on x86-64 with an invariant TSC it is one rdtsc and a multiply,
// with parameters calibrated against CLOCK_MONOTONIC and re-steered periodically by the
// activity worker; elsewhere it is CLOCK_MONOTONIC. Nothing is calibrated at load: the
// first reading opens a 10 ms baseline, readings within it are CLOCK_MONOTONIC, and the
// first reading after it (or the worker) switches to the TSC. Either way the value is
// CLOCK_MONOTONIC plus an offset fixed at first use, so device times reported in
// CLOCK_MONOTONIC (by the virtual NPU) land in the same epoch.
#pragma once

#include <cstdint>

namespace mspti::clock {

// Epoch nanoseconds now. Not clamped: callers that need per-thread monotonicity clamp.
uint64_t now_ns();

// Maps a CLOCK_MONOTONIC nanosecond value to epoch nanoseconds.
uint64_t monotonic_to_epoch(uint64_t monotonic_ns);

// Re-measures the TSC rate against CLOCK_MONOTONIC and steers the conversion towards it
// without ever moving it backwards. Returns the suggested delay (ms) before the next call.
uint32_t recalibrate();

// True when now_ns() uses the TSC, or will once its baseline is complete.
bool uses_tsc();

// fork(): prepare holds the calibration lock so the child never inherits a half-published
// calibration; parent and child release it.
void fork_prepare();
void fork_parent();
void fork_child();

}  // namespace mspti::clock
