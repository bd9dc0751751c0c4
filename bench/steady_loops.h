// The timed loops of the marker steady-state benchmarks (bench_steady_state, bench_marker_floor):
// wall and thread CPU time per call and minor faults, a loop of TSC reads as the baseline, short
// loops each followed by an untimed flush, and the JSON of one figure.
#pragma once

#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace steady {

constexpr int kShortCalls = 20000;
constexpr int kShortLoops = 10;

inline uint64_t NowNs(clockid_t clock) {
    timespec ts;
    clock_gettime(clock, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

inline long MinorFaults() {
    rusage u{};
    getrusage(RUSAGE_THREAD, &u);
    return u.ru_minflt;
}

struct Timing {
    double wall_ns;  // per call
    double cpu_ns;  // this thread's CPU time per call
    double faults;  // minor faults on this thread in the loop
};

inline Timing Time(long calls, void (*body)(long)) {
    long f0 = MinorFaults();
    uint64_t c0 = NowNs(CLOCK_THREAD_CPUTIME_ID), w0 = NowNs(CLOCK_MONOTONIC);
    body(calls);
    uint64_t w1 = NowNs(CLOCK_MONOTONIC), c1 = NowNs(CLOCK_THREAD_CPUTIME_ID);
    long f1 = MinorFaults();
    return {double(w1 - w0) / double(calls), double(c1 - c0) / double(calls), double(f1 - f0)};
}

/// The baseline: n TSC reads (a monotonic clock read off x86-64).
inline void Tsc(long n) {
    for (long i = 0; i < n; ++i) {
#if defined(__x86_64__)
        uint64_t t = __builtin_ia32_rdtsc();
#else
        uint64_t t = NowNs(CLOCK_MONOTONIC);
#endif
        asm volatile("" : : "r"(t));
    }
}

/// Short loops: kShortLoops of kShortCalls calls, each followed by an untimed flush; the median loop.
inline Timing Short(void (*loop)(long), void (*flush)()) {
    std::vector<Timing> t;
    for (int i = 0; i < kShortLoops; ++i) {
        t.push_back(Time(kShortCalls, loop));
        flush();
    }
    std::sort(t.begin(), t.end(), [](const Timing &a, const Timing &b) { return a.wall_ns < b.wall_ns; });
    return t[t.size() / 2];
}

inline void Json(const char *name, const Timing &t, bool comma = true) {
    std::printf("\"%s\": {\"wall_ns\": %.3f, \"cpu_ns\": %.3f, \"faults\": %.0f}%s", name, t.wall_ns, t.cpu_ns,
                t.faults, comma ? ", " : "");
}

/// `reps` repetitions, each: TSC reads, marks and range pairs of `records` records, then their short
/// loops; prints each repetition's JSON object, comma-separated (the "reps" array's contents).
inline void RunRepetitions(int reps, long records, void (*marks)(long), void (*ranges)(long), void (*flush)()) {
    for (int rep = 0; rep < reps; ++rep) {
        Timing tsc = Time(records, Tsc);
        Timing mark = Time(records, marks);
        flush();
        Timing range = Time(records / 2, ranges);  // two records a pair: the same buffers filled
        flush();
        Timing short_mark = Short(marks, flush);
        Timing short_range = Short(ranges, flush);
        std::printf("%s{", rep == 0 ? "" : ", ");
        Json("tsc", tsc);
        Json("mark", mark);
        Json("range", range);
        Json("short_mark", short_mark);
        Json("short_range", short_range, false);
        std::printf("}");
        std::fflush(stdout);
    }
}

}  // namespace steady
