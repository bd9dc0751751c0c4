// The trace tool's one wall clock, CLOCK_REALTIME: msPTI stamps records in epoch ns on it, and
// sem_timedwait takes its deadlines on it.
#pragma once

#include <time.h>

#include <cstdint>

namespace mspti_trace {

/// Now, as epoch ns.
inline uint64_t now_epoch_ns() {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

/// `ms` milliseconds from now, as the absolute time sem_timedwait takes.
inline timespec wall_clock_after(int ms) {
    uint64_t t = now_epoch_ns() + static_cast<uint64_t>(ms < 0 ? 0 : ms) * 1000000ull;
    timespec ts{};
    ts.tv_sec = static_cast<time_t>(t / 1000000000ull);
    ts.tv_nsec = static_cast<long>(t % 1000000000ull);
    return ts;
}

}  // namespace mspti_trace
