// Inside libascend_hal, what device_info.cpp gives the channels: the chip id and the device counter's
// rate and start, read from the environment once. The channels convert a task's two times with one
// read of the rate and no call, rather than through the exported vnpuHalTicks (a PLT call and two
// guarded statics per time).
#pragma once

#include <cstdint>

namespace vnpu::hal {

/// The device counter: ticks per ms (VNPU_DEVICE_TICKS_PER_MS) from `offset` ticks (VNPU_DEVICE_CLOCK_OFFSET).
struct TickRate {
    uint64_t perMs;
    uint64_t offset;
};

const TickRate &tick_rate();
/// vnpuHalChipId's answer (VNPU_CHIP).
uint32_t chip_id();

/// The counter at CLOCK_MONOTONIC `monoNs`: whole milliseconds and the rest apart, in 64-bit arithmetic
/// (the rest times at most 10^9 ticks per ms stays below 2^50), the value of the 128-bit product
/// without its division call.
inline uint64_t to_ticks(uint64_t monoNs, const TickRate &rate) {
    constexpr uint64_t kNsPerMs = 1000000U;
    return monoNs / kNsPerMs * rate.perMs + monoNs % kNsPerMs * rate.perMs / kNsPerMs + rate.offset;
}

}  // namespace vnpu::hal
