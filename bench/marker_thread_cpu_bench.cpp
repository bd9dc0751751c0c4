// CPU time per mstxMarkA with two producer threads against one, collection on.
//
// Each producer reads its own CLOCK_THREAD_CPUTIME_ID around its loop, so the time a thread spends
// waiting in the run queue of a busy machine is not counted: what is left is the marker's own
// cost plus what two producers do to each other (shared cache lines, locks). The control is the
// same figure for clock_gettime(CLOCK_MONOTONIC), which shares nothing between threads: its ratio
// is what the machine itself adds with a second thread. One-thread and two-thread runs are
// interleaved; every run is followed by an untimed flush, and the marker records are counted
// (produced, delivered, dropped) over the whole program.
//
// Usage: bench_marker_thread_cpu [calls per thread] [repetitions]   (JSON on stdout)
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <thread>
#include <vector>

#include "mspti/mspti.h"
#include "mspti/mspti_ext.h"
#include "mstx/ms_tools_ext.h"

namespace {

constexpr size_t kBufferBytes = 8 << 20;

// A client that recycles its buffers, as a real tool would; they are touched up front so that
// page faults of fresh memory are not part of the figure.
std::mutex g_buffers_mutex;
std::vector<uint8_t *> g_free_buffers;

void request_buffer(uint8_t **buffer, size_t *size, size_t *max_records) {
    std::lock_guard<std::mutex> lock(g_buffers_mutex);
    if (g_free_buffers.empty()) {
        *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, kBufferBytes));
    } else {
        *buffer = g_free_buffers.back();
        g_free_buffers.pop_back();
    }
    *size = *buffer == nullptr ? 0 : kBufferBytes;
    *max_records = 0;
}

void complete_buffer(uint8_t *buffer, size_t, size_t) {
    std::lock_guard<std::mutex> lock(g_buffers_mutex);
    g_free_buffers.push_back(buffer);
}

void preallocate(int count) {
    std::lock_guard<std::mutex> lock(g_buffers_mutex);
    for (int i = 0; i < count; ++i) {
        auto *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, kBufferBytes));
        std::memset(buffer, 0, kBufferBytes);
        g_free_buffers.push_back(buffer);
    }
}

uint64_t thread_cpu_ns() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

void mark_loop(long calls) {
    for (long i = 0; i < calls; ++i) mstxMarkA("bench_mark", nullptr);
}

void clock_loop(long calls) {
    timespec ts;
    for (long i = 0; i < calls; ++i) {
        clock_gettime(CLOCK_MONOTONIC, &ts);
        asm volatile("" : : "r"(&ts) : "memory");  // keep the call and its result
    }
}

uint64_t wall_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

/**
 * Thread CPU ns per call, over `threads` producers that start together. `parallelism`: their CPU
 * time over the wall time of the run (2 when two producers really ran at the same time; a busy
 * machine makes it smaller, and with it the contention the figure can show).
 */
double cpu_ns_per_call(int threads, long calls, void (*loop)(long), double *parallelism) {
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<uint64_t> cpu(static_cast<size_t>(threads));
    std::vector<std::thread> producers;
    for (int t = 0; t < threads; ++t) {
        producers.emplace_back([&, t] {
            ready.fetch_add(1, std::memory_order_acq_rel);
            while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
            uint64_t start = thread_cpu_ns();
            loop(calls);
            cpu[static_cast<size_t>(t)] = thread_cpu_ns() - start;
        });
    }
    while (ready.load(std::memory_order_acquire) != threads) std::this_thread::yield();
    uint64_t wall_start = wall_ns();
    go.store(true, std::memory_order_release);
    for (auto &producer : producers) producer.join();
    uint64_t wall = wall_ns() - wall_start;
    msptiActivityFlushAll(1);  // untimed: the next run starts with empty buffers
    uint64_t total = 0;
    for (uint64_t ns : cpu) total += ns;
    *parallelism = wall == 0 ? 0.0 : static_cast<double>(total) / static_cast<double>(wall);
    return static_cast<double>(total) / (static_cast<double>(threads) * static_cast<double>(calls));
}

struct Figures {
    std::vector<double> one, two, parallelism;

    void run(long calls, void (*loop)(long)) {
        double unused = 0, both = 0;
        one.push_back(cpu_ns_per_call(1, calls, loop, &unused));
        two.push_back(cpu_ns_per_call(2, calls, loop, &both));
        parallelism.push_back(both);
    }
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double minimum(const std::vector<double> &v) { return *std::min_element(v.begin(), v.end()); }

void print_figures(const char *name, const Figures &f, bool last) {
    double m1 = median(f.one), m2 = median(f.two), b1 = minimum(f.one), b2 = minimum(f.two);
    std::printf(
        "  \"%s\": {\"one_thread\": {\"min_ns\": %.3f, \"median_ns\": %.3f}, "
        "\"two_threads\": {\"min_ns\": %.3f, \"median_ns\": %.3f}, \"ratio_median\": %.4f, "
        "\"ratio_min\": %.4f, \"two_thread_parallelism_median\": %.3f}%s\n",
        name, b1, m1, b2, m2, m2 / m1, b2 / b1, median(f.parallelism), last ? "" : ",");
}

}  // namespace

int main(int argc, char **argv) {
    long calls = argc > 1 ? std::atol(argv[1]) : 1000000;
    int repetitions = argc > 2 ? std::atoi(argv[2]) : 15;
    if (calls <= 0 || repetitions <= 0) {
        std::fprintf(stderr, "usage: %s [calls per thread > 0] [repetitions > 0]\n", argv[0]);
        return 2;
    }
    preallocate(16);
    if (msptiActivityRegisterCallbacks(request_buffer, complete_buffer) != MSPTI_SUCCESS ||
        msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER) != MSPTI_SUCCESS) {
        std::fprintf(stderr, "collection could not be switched on: %s\n", msptiExtGetLastError());
        return 1;
    }
    msptiExtActivityStats before{};
    msptiExtActivityGetStats(MSPTI_ACTIVITY_KIND_MARKER, &before);

    Figures mark, clock;
    mark_loop(calls);  // warm-up: this thread's staging, the interned name, the buffers
    msptiActivityFlushAll(1);
    for (int r = 0; r < repetitions; ++r) {
        mark.run(calls, mark_loop);
        clock.run(calls, clock_loop);
    }

    msptiActivityDisable(MSPTI_ACTIVITY_KIND_MARKER);
    msptiActivityFlushAll(1);
    msptiExtActivityStats after{};
    msptiExtActivityGetStats(MSPTI_ACTIVITY_KIND_MARKER, &after);
    std::printf("{\n  \"calls_per_thread\": %ld,\n  \"repetitions\": %d,\n", calls, repetitions);
    print_figures("mstxMarkA", mark, false);
    print_figures("clock_gettime", clock, false);
    std::printf(
        "  \"marker_records\": {\"marked\": %llu, \"produced\": %llu, \"delivered\": %llu, "
        "\"dropped\": %llu}\n}\n",
        static_cast<unsigned long long>(calls) * (1 + 3ull * static_cast<unsigned long long>(repetitions)),
        static_cast<unsigned long long>(after.produced - before.produced),
        static_cast<unsigned long long>(after.delivered - before.delivered),
        static_cast<unsigned long long>(after.dropped - before.dropped));
    return 0;
}
