#include "core/clock.h"

#include <atomic>
#include <ctime>
#include <mutex>

#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

namespace mspti::clock {

namespace detail {
constinit TscConversion g_tsc;
constinit std::atomic<uint64_t> g_steers_published{0};
}  // namespace detail

namespace {

using detail::g_tsc;
using detail::kMonotonic;
using detail::kPendingTsc;
using detail::kTsc;

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

// The calibrating thread's state (the published conversion is detail::g_tsc).
struct Calibration {
    // Long baseline for the rate estimate; touched only by the calibrating thread.
    uint64_t first_tsc = 0;
    uint64_t first_mono = 0;
};

// Held by whoever calibrates, and across fork() (so a child never inherits a half-published
// calibration, whose odd sequence number would make its readers spin forever).
std::mutex g_calibrating;

// How long the TSC is watched against CLOCK_MONOTONIC before its rate is trusted: ~4 ppm. Until
// then timestamps come from CLOCK_MONOTONIC itself, so nothing is ever skewed by a short baseline.
constexpr uint64_t kBaselineNs = 10000000ull;

// How often the worker steers the TSC back onto CLOCK_MONOTONIC. Device times (the runtime's
// CLOCK_MONOTONIC) and host times (the TSC) drift apart by the rate's error in between: about
// 0.5 ppm after a 10 ms baseline, i.e. 0.5 us a second, enough to put a host call after a device
// event that followed it. Every 100 ms keeps them within tens of ns; a steer costs about 1 us.
constexpr uint32_t kSteerMs = 100;

// The last TickConverter::kSteersKept conversions published, in a circular array, for ticks
// converted after the fact. Guarded by g_calibrating; g_steers_published mirrors `count` for
// converters that check without the lock whether their copy is still current.
using detail::Steer;

struct SteerHistory {
    Steer steers[TickConverter::kSteersKept] = {};
    uint64_t count = 0;  // published so far; the newest is steers[(count - 1) % kSteersKept]

    void add(const Steer &steer) {
        steers[count++ % TickConverter::kSteersKept] = steer;
        detail::g_steers_published.store(count, std::memory_order_release);
    }

    // The steer in force at `tsc`, and in *until the first tick of the next one (or ~0).
    const Steer *for_tick(uint64_t tsc, uint64_t *until) const {
        *until = ~0ull;
        if (count == 0) return nullptr;
        uint64_t kept = count < TickConverter::kSteersKept ? count : TickConverter::kSteersKept;
        const Steer *oldest = nullptr;
        for (uint64_t i = 0; i < kept; ++i) {  // newest first: almost always the first or second
            const Steer &steer = steers[(count - 1 - i) % TickConverter::kSteersKept];
            if (steer.tsc_base <= tsc) return &steer;
            oldest = &steer;
            *until = steer.tsc_base;
        }
        return oldest;
    }
};

struct State {
    std::atomic<int> &mode = g_tsc.mode;
    Sample start{0, 0};
    Calibration cal;
    SteerHistory history;

    State() {
        // Offset between the epoch and CLOCK_MONOTONIC, taken between two monotonic reads.
        uint64_t m0 = monotonic_now();
        uint64_t real = read_clock(CLOCK_REALTIME);
        uint64_t m1 = monotonic_now();
        g_tsc.epoch_offset = real - (m0 + (m1 - m0) / 2);
        // No spinning here: the first sample opens the baseline, and the first timestamp read
        // after kBaselineNs (or the worker) closes it. Loading the library costs a few reads.
        if (has_invariant_tsc()) {
            start = paired_sample();
            mode.store(kPendingTsc, std::memory_order_release);
        }
    }

    // Switches to the TSC once the baseline is long enough; false if not yet (or not at all).
    // Caller holds g_calibrating.
    bool finish_calibration_locked() {
        if (mode.load(std::memory_order_relaxed) != kPendingTsc) return mode.load(std::memory_order_relaxed) == kTsc;
        Sample last = paired_sample();
        if (last.mono - start.mono < kBaselineNs) return false;
        if (last.tsc <= start.tsc) {
            mode.store(kMonotonic, std::memory_order_release);  // a TSC that does not advance
            return false;
        }
        cal.first_tsc = start.tsc;
        cal.first_mono = start.mono;
        uint64_t mult = static_cast<uint64_t>((static_cast<unsigned __int128>(last.mono - start.mono) << 32) /
                                              (last.tsc - start.tsc));
        // Anchored at a fresh paired sample, so the first TSC timestamp continues CLOCK_MONOTONIC.
        publish(last.tsc, last.mono, mult);
        mode.store(kTsc, std::memory_order_release);
        return true;
    }

    // From a timestamp read: calibrates if nobody else is doing it right now (never waits).
    void try_finish_calibration() {
        std::unique_lock<std::mutex> lock(g_calibrating, std::try_to_lock);
        if (lock.owns_lock()) finish_calibration_locked();
    }

    void publish(uint64_t tsc_base, uint64_t mono_base, uint64_t mult) {
        // Seqlock without fences (ThreadSanitizer does not model them): release stores keep the
        // odd sequence number ahead of the fields, and the fields ahead of the even one.
        uint32_t s = g_tsc.seq.load(std::memory_order_relaxed);
        g_tsc.seq.store(s + 1, std::memory_order_relaxed);
        g_tsc.tsc_base.store(tsc_base, std::memory_order_release);
        g_tsc.mono_base.store(mono_base, std::memory_order_release);
        g_tsc.mult_q32.store(mult, std::memory_order_release);
        g_tsc.seq.store(s + 2, std::memory_order_release);
        history.add({tsc_base, mono_base, mult});
    }

    uint64_t tsc_monotonic(uint64_t t) const { return g_tsc.tsc_monotonic(t); }
};

State &state() {
    static State s;
    return s;
}

}  // namespace

uint64_t detail::now_ns_slow() {
    State &s = state();
    if (s.mode.load(std::memory_order_acquire) == kTsc) return s.tsc_monotonic(ticks()) + g_tsc.epoch_offset;
    uint64_t mono = monotonic_now();
    if (s.mode.load(std::memory_order_relaxed) == kPendingTsc && mono - s.start.mono >= kBaselineNs)
        s.try_finish_calibration();
    return mono + g_tsc.epoch_offset;
}

uint64_t detail::monotonic_to_epoch_slow(uint64_t monotonic_ns) {
    state();  // sets the offset on first use
    return monotonic_ns + g_tsc.epoch_offset;
}

uint64_t TickConverter::to_epoch_slow(uint64_t tsc) {
    State &s = state();
    std::lock_guard<std::mutex> lock(g_calibrating);
    const Steer *steer = s.history.for_tick(tsc, &until_);
    // Raw ticks are stored only once a conversion is published; without one, read the clock.
    if (steer == nullptr) {
        until_ = 0;
        return monotonic_now() + g_tsc.epoch_offset;
    }
    steer_ = *steer;
    from_ = steer->tsc_base;
    mult_ = steer->mult_q32;
    offset_ = steer->mono_base + g_tsc.epoch_offset;
    published_ = s.history.count;
    return steer_.monotonic(tsc) + g_tsc.epoch_offset;
}

bool uses_tsc() { return state().mode.load(std::memory_order_acquire) != kMonotonic; }

uint32_t recalibrate() {
    State &s = state();
    std::lock_guard<std::mutex> lock(g_calibrating);
    if (s.mode.load(std::memory_order_relaxed) == kPendingTsc) {
        s.finish_calibration_locked();
        return kSteerMs;
    }
    if (s.mode.load(std::memory_order_relaxed) != kTsc) return 7000;
    Sample now = paired_sample();
    uint64_t t = now.tsc;
    uint64_t actual = now.mono;
    uint64_t converted = s.tsc_monotonic(t);
    Calibration &c = s.cal;
    uint64_t rate =
        static_cast<uint64_t>((static_cast<unsigned __int128>(actual - c.first_mono) << 32) / (t - c.first_tsc));
    uint32_t next_ms = kSteerMs;
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

void fork_prepare() {
    // Constructed now if it was not: a child must not inherit its construction half done (the
    // static's guard would then stay taken there forever).
    state();
    g_calibrating.lock();
}

void fork_parent() { g_calibrating.unlock(); }

void fork_child() { g_calibrating.unlock(); }

}  // namespace mspti::clock
