// The clock calibrates at first use, not at load: readings start on CLOCK_MONOTONIC and switch to
// the TSC after a 10 ms baseline, staying on the system clock and (but for the pairing error of a
// sample, which the per-thread clamp of records absorbs) never stepping back at the switch.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "core/clock.h"
#include "core/thread_staging.h"
#include "mspti/mspti.h"
#include "mstx/marker_recorder.h"

namespace {

uint64_t MonotonicNs() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

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

// Device times (the virtual NPU's CLOCK_MONOTONIC, mapped by monotonic_to_epoch) and host times
// (now_ns(), the TSC) must agree: a host call made after a device-stamped one must not appear
// before it in the trace. The TSC's rate comes from a 10 ms baseline first; between two steers
// of the worker it drifts from CLOCK_MONOTONIC by that rate's error. Each process calibrates
// once, so several fresh processes are checked: one lucky baseline proves nothing.
TEST(Clock, HostReadingsStayWithin250nsOfTheDeviceClockWhileTheWorkerSteers) {
    constexpr uint64_t kLimitNs = 250;
    if (std::getenv("MSPTI_CLOCK_TEST_CHILD") != nullptr) {
        // As the activity worker does: it wakes every 100 ms at most and steers when asked to.
        uint64_t begin = MonotonicNs(), next_wake = 0, next_steer = 0, worst = 0;
        while (MonotonicNs() - begin < 1300000000ull) {
            uint64_t now = MonotonicNs();
            if (now >= next_wake) {
                next_wake = now + 100000000ull;
                if (now >= next_steer) next_steer = now + mspti::clock::recalibrate() * 1000000ull;
            }
            uint64_t before = mspti::clock::monotonic_to_epoch(MonotonicNs());
            uint64_t t = mspti::clock::now_ns();
            uint64_t after = mspti::clock::monotonic_to_epoch(MonotonicNs());
            worst = std::max(worst, t < before ? before - t : (t > after ? t - after : 0));
            std::this_thread::sleep_for(std::chrono::microseconds(200));  // pacing, not synchronisation
        }
        std::printf("worst disagreement %llu ns\n", static_cast<unsigned long long>(worst));
        EXPECT_LE(worst, kLimitNs);
        return;
    }
    if (!mspti::clock::uses_tsc()) GTEST_SKIP() << "no invariant TSC: one clock for host and device";
    std::string filter = "--gtest_filter=Clock.HostReadingsStayWithin250nsOfTheDeviceClockWhileTheWorkerSteers";
    std::vector<pid_t> children;
    for (int i = 0; i < 4; ++i) {
        char *argv[] = {const_cast<char *>("/proc/self/exe"), filter.data(), nullptr};
        std::vector<char *> env;
        for (char **e = environ; *e != nullptr; ++e) env.push_back(*e);
        env.push_back(const_cast<char *>("MSPTI_CLOCK_TEST_CHILD=1"));
        env.push_back(nullptr);
        pid_t pid = 0;
        ASSERT_EQ(posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv, env.data()), 0);
        children.push_back(pid);
    }
    int failed = 0;
    for (pid_t pid : children) {
        int status = 0;
        ASSERT_EQ(waitpid(pid, &status, 0), pid);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed;
    }
    EXPECT_EQ(failed, 0) << "processes whose host clock left CLOCK_MONOTONIC by more than " << kLimitNs << " ns";
}

// Raw ticks staged now and converted later (after more steers than are kept, and by one
// converter that saw the steers come) read as now_ns() would have when they were taken: exactly
// while their conversion is kept, and within a microsecond once it is not (the oldest kept one
// is extrapolated back).
TEST(Clock, DeferredTicksConvertWithTheConversionOfTheirMoment) {
    using namespace mspti::clock;
    auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!is_raw_tick(deferred_now())) {  // the 10 ms baseline first
        if (!uses_tsc() || std::chrono::steady_clock::now() > give_up) GTEST_SKIP() << "no TSC conversion";
        recalibrate();
    }
    struct Reading {
        uint64_t before, raw, after;
    };
    std::vector<Reading> readings;
    TickConverter converter;
    constexpr unsigned kSteers = TickConverter::kSteersKept * 2;
    for (unsigned i = 0; i < kSteers; ++i) {
        uint64_t before = now_ns();
        uint64_t raw = deferred_now();
        uint64_t after = now_ns();
        ASSERT_TRUE(is_raw_tick(raw));
        readings.push_back({before, raw, after});
        converter.to_epoch(raw);  // caches this conversion: the next steer must invalidate it
        recalibrate();  // a steer: a new conversion is published
    }
    for (unsigned i = 0; i < kSteers; ++i) {
        uint64_t t = converter.to_epoch(readings[i].raw);
        // The last half of the kept ones, in case the activity worker steered meanwhile too.
        bool kept = i >= kSteers - TickConverter::kSteersKept / 2;
        uint64_t slack = kept ? 0 : 1000;
        EXPECT_GE(t + slack, readings[i].before) << "reading " << i;
        EXPECT_LE(t, readings[i].after + slack) << "reading " << i;
    }
}

// The drain converts a run of markers with a window of its converter's conversion
// (TickConverter::window): the values to_epoch() gives for the ticks it covers, none for a value
// that is not a raw tick, and nothing at all once a newer conversion is published.
TEST(Clock, AWindowConvertsAsToEpochUntilANewConversionIsPublished) {
    using namespace mspti::clock;
    auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!is_raw_tick(deferred_now())) {  // the 10 ms baseline first
        if (!uses_tsc() || std::chrono::steady_clock::now() > give_up) GTEST_SKIP() << "no TSC conversion";
        recalibrate();
    }
    TickConverter converter;
    EXPECT_EQ(converter.window().span, 0u) << "a window before any conversion was copied";
    bool compared = false;
    for (int attempt = 0; attempt < 100 && !compared; ++attempt) {
        // Retried if the activity worker steers in between: the window is then rightly empty.
        const uint64_t published = detail::g_steers_published.load();
        converter.to_epoch(deferred_now());  // copies the conversion in force
        const TickConverter::Window w = converter.window();
        uint64_t ticks[64];
        for (uint64_t &tick : ticks) tick = deferred_now();
        if (detail::g_steers_published.load() != published) continue;
        ASSERT_NE(w.span, 0u);
        for (uint64_t tick : ticks) {
            const uint64_t d = tick - w.from;
            ASSERT_LT(d, w.span);
            const uint64_t in_window =
                w.offset + static_cast<uint64_t>((static_cast<unsigned __int128>(d) * w.mult) >> 32);
            EXPECT_EQ(in_window, converter.to_epoch(tick));
        }
        EXPECT_GE(now_ns() - w.from, w.span) << "epoch nanoseconds fall outside every window";
        compared = true;
    }
    ASSERT_TRUE(compared) << "the conversion changed on every attempt";
    recalibrate();  // publishes a newer conversion
    EXPECT_EQ(converter.window().span, 0u) << "a window of a conversion no longer the newest";
}

namespace {
std::vector<msptiActivityMarker> g_markers;
void RequestBuffer(uint8_t **buffer, size_t *size, size_t *max) {
    *size = 1 << 20;
    *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, *size));
    *max = 0;
}
void CompleteBuffer(uint8_t *buffer, size_t, size_t valid) {
    msptiActivity *record = nullptr;
    while (msptiActivityGetNextRecord(buffer, valid, &record) == MSPTI_SUCCESS)
        if (record->kind == MSPTI_ACTIVITY_KIND_MARKER)
            g_markers.push_back(*reinterpret_cast<msptiActivityMarker *>(record));
    std::free(buffer);
}
}  // namespace

// Host markers are staged with a raw TSC tick and converted when drained ("Deferred
// timestamps" in core/clock.h): each must read exactly as the clock did around the call, across
// the activity worker's steers (every 100 ms, so the loop spans several).
TEST(Clock, MarkersStagedAsRawTicksReadAsTheClockAroundTheCall) {
    ASSERT_EQ(msptiActivityRegisterCallbacks(RequestBuffer, CompleteBuffer), MSPTI_SUCCESS);
    ASSERT_EQ(msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER), MSPTI_SUCCESS);
    struct Bracket {
        uint64_t before, after;
    };
    std::vector<Bracket> marks, ranges;
    auto stop = std::chrono::steady_clock::now() + std::chrono::milliseconds(350);
    auto next = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() < stop) {
        if (std::chrono::steady_clock::now() < next) continue;  // pacing: about 17,000 calls in all
        next += std::chrono::microseconds(20);
        uint64_t before = mspti::clock::now_ns();
        mspti::mstx::mark("steered", nullptr);  // what mstxMarkA calls
        uint64_t between = mspti::clock::now_ns();
        mspti::mstx::range_end(mspti::mstx::range_start("steered_range", nullptr));
        marks.push_back(Bracket{before, between});
        ranges.push_back(Bracket{between, mspti::clock::now_ns()});
    }
    msptiActivityDisable(MSPTI_ACTIVITY_KIND_MARKER);
    ASSERT_EQ(msptiActivityFlushAll(1), MSPTI_SUCCESS);
    ASSERT_EQ(g_markers.size(), marks.size() * 3);
    size_t outside = 0;
    for (size_t i = 0; i < marks.size(); ++i) {
        const msptiActivityMarker &mark = g_markers[3 * i], &start = g_markers[3 * i + 1], &end = g_markers[3 * i + 2];
        ASSERT_EQ(mark.flag, MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS);
        ASSERT_EQ(start.flag, MSPTI_ACTIVITY_FLAG_MARKER_START);
        if (mark.timestamp < marks[i].before || mark.timestamp > marks[i].after) ++outside;
        if (start.timestamp < ranges[i].before || end.timestamp > ranges[i].after || start.timestamp > end.timestamp)
            ++outside;
    }
    EXPECT_EQ(outside, 0u) << "of " << marks.size()
                           << " calls, some timestamps fell outside the clock readings around them";
}

namespace {
size_t g_early_records = 0, g_early_named = 0;
uint64_t g_early_last = 0;
bool g_early_in_order = true;
void CompleteEarly(uint8_t *buffer, size_t, size_t valid) {
    msptiActivity *record = nullptr;
    while (msptiActivityGetNextRecord(buffer, valid, &record) == MSPTI_SUCCESS) {
        if (record->kind != MSPTI_ACTIVITY_KIND_MARKER) continue;
        const auto *marker = reinterpret_cast<const msptiActivityMarker *>(record);
        ++g_early_records;
        if (std::string(marker->name) == "early" && marker->sourceKind == MSPTI_ACTIVITY_SOURCE_KIND_HOST)
            ++g_early_named;
        if (marker->timestamp < g_early_last) g_early_in_order = false;
        g_early_last = marker->timestamp;
    }
    std::free(buffer);
}
}  // namespace

// The mark's fast path keeps a thread's last message only while raw ticks are in use
// (ThreadMarkers::is_last): a message interned before the switch to the TSC is marked across it
// with its name and in order, and is taken by the fast path once the TSC is in use.
TEST(Clock, AMessageInternedBeforeTheSwitchToTheTscIsMarkedAcrossIt) {
    using namespace mspti::clock;
    if (!uses_tsc()) GTEST_SKIP() << "no invariant TSC";
    if (raw_ticks_in_use()) GTEST_SKIP() << "the clock switched to the TSC before this test began";
    ASSERT_EQ(msptiActivityRegisterCallbacks(RequestBuffer, CompleteEarly), MSPTI_SUCCESS);
    ASSERT_EQ(msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER), MSPTI_SUCCESS);
    alignas(16) static const char kMessage[16] = "early";  // its 16 bytes in one page
    size_t marks = 0;
    auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!raw_ticks_in_use()) {  // a reading after the 10 ms baseline switches
        ASSERT_LT(std::chrono::steady_clock::now(), give_up) << "the TSC was never taken into use";
        mspti::mstx::mark(kMessage, nullptr);
        ++marks;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    for (int i = 0; i < 1000; ++i, ++marks) mspti::mstx::mark(kMessage, nullptr);
    ASSERT_NE(mspti::t_staging, nullptr);
#ifdef MSPTI_WIDE_NAME_COMPARE  // sanitized builds have no fast path: they compare names with strcmp
    EXPECT_TRUE(mspti::t_staging->markers.is_last(kMessage)) << "the fast path never took the message";
#endif
    msptiActivityDisable(MSPTI_ACTIVITY_KIND_MARKER);
    ASSERT_EQ(msptiActivityFlushAll(1), MSPTI_SUCCESS);
    EXPECT_EQ(g_early_records, marks);
    EXPECT_EQ(g_early_named, marks);
    EXPECT_TRUE(g_early_in_order);
}
