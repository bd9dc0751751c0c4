#include "core/clock.h"

#include <atomic>
#include <ctime>

#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

namespace mspti::clock {
namespace {

uint64_t read_clock(clockid_t id) {
    timespec ts;
    clock_gettime(id, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

uint64_t monotonic_now() { return read_clock(CLOCK_MONOTONIC); }

#if defined(__x86_64__)
bool has_invariant_tsc() {
    unsigned a, b, c, d;
    if (__get_cpuid(0x80000000u, &a, &b, &c, &d) == 0 || a < 0x80000007u) return false;
    __get_cpuid(0x80000007u, &a, &b, &c, &d);
    return (d & (1u << 8)) != 0;
}
uint64_t ticks() { return __rdtsc(); }
#else
bool has_invariant_tsc() { return false; }
uint64_t ticks() { return 0; }
#endif

// A (tsc, monotonic) pair read close together: the monotonic read is bracketed by two tick
// reads and the tightest of a few tries is kept, so that a preemption between the two reads
// cannot skew the rate (on a busy 2-core machine it otherwise does, by tens of percent).
struct Sample {
    uint64_t tsc;
    uint64_t mono;
};

Sample paired_sample() {
    Sample best{0, 0};
    uint64_t best_width = ~0ull;
    for (int attempt = 0; attempt < 8; ++attempt) {
        uint64_t before = ticks();
        uint64_t mono = monotonic_now();
        uint64_t after = ticks();
        if (after - before < best_width) {
            best_width = after - before;
            best = {before + (after - before) / 2, mono};
        }
    }
    return best;
}

// Conversion monotonic_ns = mono_base + ((tsc - tsc_base) * mult_q32) >> 32, published with a seqlock.
struct Calibration {
    std::atomic<uint32_t> seq{0};
    std::atomic<uint64_t> tsc_base{0};
    std::atomic<uint64_t> mono_base{0};
    std::atomic<uint64_t> mult_q32{0};
    // Long baseline for the rate estimate; touched only by the calibrating thread.
    uint64_t first_tsc = 0;
    uint64_t first_mono = 0;
    uint32_t rounds = 0;
};

struct State {
    uint64_t epoch_offset = 0;
    bool tsc = false;
    Calibration cal;

    State() {
        // Offset between the epoch and CLOCK_MONOTONIC, taken between two monotonic reads.
        uint64_t m0 = monotonic_now();
        uint64_t real = read_clock(CLOCK_REALTIME);
        uint64_t m1 = monotonic_now();
        epoch_offset = real - (m0 + (m1 - m0) / 2);
        tsc = has_invariant_tsc();
        if (tsc) initial_calibration();
    }

    void initial_calibration() {
        // Spin 2 ms: enough for a rate within ~20 ppm; recalibrate() refines it.
        Sample first = paired_sample();
        while (monotonic_now() - first.mono < 2000000ull) {
        }
        Sample last = paired_sample();
        uint64_t t0 = first.tsc, m0 = first.mono, t1 = last.tsc, m1 = last.mono;
        if (t1 <= t0 || m1 <= m0) {
            tsc = false;
            return;
        }
        cal.first_tsc = t0;
        cal.first_mono = m0;
        uint64_t mult = static_cast<uint64_t>((static_cast<unsigned __int128>(m1 - m0) << 32) / (t1 - t0));
        publish(t1, m1, mult);
    }

    void publish(uint64_t tsc_base, uint64_t mono_base, uint64_t mult) {
        // Seqlock without fences (ThreadSanitizer does not model them): release stores keep the
        // odd sequence number ahead of the fields, and the fields ahead of the even one.
        uint32_t s = cal.seq.load(std::memory_order_relaxed);
        cal.seq.store(s + 1, std::memory_order_relaxed);
        cal.tsc_base.store(tsc_base, std::memory_order_release);
        cal.mono_base.store(mono_base, std::memory_order_release);
        cal.mult_q32.store(mult, std::memory_order_release);
        cal.seq.store(s + 2, std::memory_order_release);
    }

    uint64_t tsc_monotonic(uint64_t t) const {
        uint64_t tsc_base, mono_base, mult;
        uint32_t s;
        do {
            s = cal.seq.load(std::memory_order_acquire);
            tsc_base = cal.tsc_base.load(std::memory_order_acquire);
            mono_base = cal.mono_base.load(std::memory_order_acquire);
            mult = cal.mult_q32.load(std::memory_order_acquire);
        } while ((s & 1u) != 0 || s != cal.seq.load(std::memory_order_relaxed));
        // A thread may read a tick older than the base it just loaded; never go below the base.
        uint64_t delta = t > tsc_base ? t - tsc_base : 0;
        return mono_base + static_cast<uint64_t>((static_cast<unsigned __int128>(delta) * mult) >> 32);
    }
};

State &state() {
    static State s;
    return s;
}

// Calibrate at load time rather than inside the first record.
[[maybe_unused]] const bool g_initialised = (state(), true);

}  // namespace

uint64_t now_ns() {
    State &s = state();
    if (s.tsc) return s.tsc_monotonic(ticks()) + s.epoch_offset;
    return monotonic_now() + s.epoch_offset;
}

uint64_t monotonic_to_epoch(uint64_t monotonic_ns) { return monotonic_ns + state().epoch_offset; }

bool uses_tsc() { return state().tsc; }

uint32_t recalibrate() {
    State &s = state();
    if (!s.tsc) return 7000;
    Sample now = paired_sample();
    uint64_t t = now.tsc;
    uint64_t actual = now.mono;
    uint64_t converted = s.tsc_monotonic(t);
    Calibration &c = s.cal;
    uint64_t rate = static_cast<uint64_t>((static_cast<unsigned __int128>(actual - c.first_mono) << 32) /
                                          (t - c.first_tsc));
    uint32_t next_ms = ++c.rounds < 10 ? 1000 : 7000;
    if (converted <= actual) {
        s.publish(t, actual, rate);  // behind: jump forward to the true value
    } else {
        // Ahead: keep continuity and run slower over the next period to absorb the lead.
        uint64_t lead = converted - actual;
        uint64_t period_ns = static_cast<uint64_t>(next_ms) * 1000000ull;
        uint64_t cut = static_cast<uint64_t>((static_cast<unsigned __int128>(rate) * lead) / period_ns);
        if (cut > rate / 100) cut = rate / 100;
        s.publish(t, converted, rate - cut);
    }
    return next_ms;
}

}  // namespace mspti::clock
