// msptiActivityFlushAll always makes progress at the limit of buffers in flight: two threads mark
// while this thread flushes in a loop, with 16 KB buffers and a limit of 2 buffers, for a few
// seconds, under a given flush period. Every flush must return; one that takes longer than the
// watchdog's bound (20 s, far above any real flush) counts as hung and fails the run.
//
// usage: flush_progress_program PERIOD_MS SECONDS
// Prints the number of flushes and the longest; exit 0 when all returned and every record was
// delivered or counted dropped.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <unistd.h>

#include "mspti/mspti.h"
#include "mspti/mspti_ext.h"
#include "mstx/ms_tools_ext.h"

namespace {

constexpr size_t kBufferBytes = 16 << 10;
constexpr auto kHung = std::chrono::seconds(20);

void Request(uint8_t **buffer, size_t *size, size_t *max_records) {
    *buffer = static_cast<uint8_t *>(std::malloc(kBufferBytes));
    *size = *buffer != nullptr ? kBufferBytes : 0;
    *max_records = 0;
}

void Complete(uint8_t *buffer, size_t, size_t) { std::free(buffer); }

using Clock = std::chrono::steady_clock;
std::atomic<int64_t> g_flush_started_ns{-1};  // -1: no flush in progress

int64_t NowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s PERIOD_MS SECONDS\n", argv[0]);
        return 2;
    }
    uint32_t period = static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 10));
    int seconds = std::atoi(argv[2]);
    if (msptiActivityRegisterCallbacks(Request, Complete) != MSPTI_SUCCESS ||
        msptiExtActivitySetBufferLimit(2, MSPTI_EXT_BUFFER_LIMIT_DROP, 0) != MSPTI_SUCCESS ||
        msptiActivityFlushPeriod(period) != MSPTI_SUCCESS ||
        msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER) != MSPTI_SUCCESS) {
        std::fprintf(stderr, "setup failed: %s\n", msptiExtGetLastError());
        return 2;
    }
    std::atomic<bool> stop{false};
    // The watchdog: a flush in progress for longer than kHung is a hang (exit at once: a hung
    // flush would otherwise keep the test until CTest's timeout).
    std::thread watchdog([&] {
        while (!stop.load()) {
            int64_t started = g_flush_started_ns.load();
            if (started >= 0 && NowNs() - started > std::chrono::nanoseconds(kHung).count()) {
                std::fprintf(stderr, "a flush has not returned after %lld s (period %u ms): hung\n",
                             static_cast<long long>(std::chrono::duration_cast<std::chrono::seconds>(kHung).count()),
                             period);
                std::_Exit(1);
            }
            usleep(10000);  // polling the condition above, not waiting for it
        }
    });
    std::thread markers[2];
    for (std::thread &t : markers)
        t = std::thread([&] {
            while (!stop.load()) mstxMarkA("progress", nullptr);
        });
    auto end = Clock::now() + std::chrono::seconds(seconds);
    long flushes = 0;
    int64_t longest = 0;
    while (Clock::now() < end) {
        int64_t started = NowNs();
        g_flush_started_ns.store(started);
        msptiActivityFlushAll(1);
        g_flush_started_ns.store(-1);
        int64_t took = NowNs() - started;
        if (took > longest) longest = took;
        ++flushes;
    }
    stop.store(true);
    for (std::thread &t : markers) t.join();
    msptiActivityFlushAll(1);
    watchdog.join();
    msptiExtActivityStats s{};
    msptiExtActivityGetStats(MSPTI_ACTIVITY_KIND_MARKER, &s);
    std::printf("period %u ms: %ld flushes, the longest %.1f ms; %llu produced, %llu delivered, %llu dropped\n", period,
                flushes, longest / 1e6, static_cast<unsigned long long>(s.produced),
                static_cast<unsigned long long>(s.delivered), static_cast<unsigned long long>(s.dropped));
    return s.produced == s.delivered + s.dropped ? 0 : 1;
}
