// The clock calibrates at first use, not at load: readings start on CLOCK_MONOTONIC and switch to
// the TSC after a 10 ms baseline, staying on the system clock and (but for the pairing error of a
// sample, which the per-thread clamp of records absorbs) never stepping back at the switch.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <ctime>

#include <gtest/gtest.h>

#include "core/clock.h"

namespace {

uint64_t RealtimeNs() {
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

TEST(Clock, ReadingsStayOnTheSystemClockAndGoForwardAcrossTheSwitchToTheTsc) {
    uint64_t previous = 0, largest_step_back = 0, largest_gap = 0;
    auto start = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - start < std::chrono::milliseconds(40)) {
        uint64_t before = RealtimeNs();
        uint64_t t = mspti::clock::now_ns();
        uint64_t after = RealtimeNs();
        // Within the window of two system-clock reads, give or take 1 ms.
        uint64_t gap = t < before ? before - t : (t > after ? t - after : 0);
        largest_gap = std::max(largest_gap, gap);
        if (t < previous) largest_step_back = std::max(largest_step_back, previous - t);
        previous = t;
    }
    EXPECT_LT(largest_gap, 1000000u);
    EXPECT_LT(largest_step_back, 1000u);
}
