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

#include <atomic>
#include <cstdint>

namespace mspti::clock {

namespace detail {

enum Mode : int { kMonotonic, kPendingTsc, kTsc };

// One published conversion: monotonic_ns = mono_base + ((tsc - tsc_base) * mult_q32) >> 32.
struct Steer {
    uint64_t tsc_base;
    uint64_t mono_base;
    uint64_t mult_q32;

    uint64_t monotonic(uint64_t tsc) const {
        if (tsc >= tsc_base)
            return mono_base + static_cast<uint64_t>((static_cast<unsigned __int128>(tsc - tsc_base) * mult_q32) >> 32);
        // Older than every steer kept: extrapolate the oldest backwards.
        return mono_base - static_cast<uint64_t>((static_cast<unsigned __int128>(tsc_base - tsc) * mult_q32) >> 32);
    }
};

// The TSC conversion, constant-initialised so that a reading needs no guard nor call:
// a Steer published with a seqlock.
// epoch_offset is written once, before mode first leaves kMonotonic.
struct TscConversion {
    std::atomic<int> mode{kMonotonic};
    uint64_t epoch_offset = 0;
    std::atomic<uint32_t> seq{0};
    std::atomic<uint64_t> tsc_base{0};
    std::atomic<uint64_t> mono_base{0};
    std::atomic<uint64_t> mult_q32{0};

    uint64_t tsc_monotonic(uint64_t t) const {
        uint64_t base, mono, mult;
        uint32_t s;
        do {
            s = seq.load(std::memory_order_acquire);
            base = tsc_base.load(std::memory_order_acquire);
            mono = mono_base.load(std::memory_order_acquire);
            mult = mult_q32.load(std::memory_order_acquire);
        } while ((s & 1u) != 0 || s != seq.load(std::memory_order_relaxed));
        // A thread may read a tick older than the base it just loaded; never go below the base.
        return Steer{base, mono, mult}.monotonic(t > base ? t : base);
    }
};
extern TscConversion g_tsc;

// Readings before the TSC is calibrated, or without one.
uint64_t now_ns_slow();

}  // namespace detail

// Epoch nanoseconds now. Not clamped: callers that need per-thread monotonicity clamp.
inline uint64_t now_ns() {
#if defined(__x86_64__)
    if (__builtin_expect(detail::g_tsc.mode.load(std::memory_order_acquire) == detail::kTsc, 1))
        return detail::g_tsc.tsc_monotonic(__builtin_ia32_rdtsc()) + detail::g_tsc.epoch_offset;
#endif
    return detail::now_ns_slow();
}

// Deferred timestamps. The mark path stores the raw TSC reading, tagged with this bit (epoch
// nanoseconds stay far below 2^63), and the consumer converts it when the record leaves the
// staging ring (ActivityEngine::drain), with the conversion that was current when it was read.
// The producer then pays one rdtsc and no conversion.
constexpr uint64_t kRawTickBit = 1ull << 63;

inline bool is_raw_tick(uint64_t value) { return (value & kRawTickBit) != 0; }

// A timestamp to store now: a tagged raw tick while the TSC is in use, else epoch nanoseconds.
inline uint64_t deferred_now() {
#if defined(__x86_64__)
    if (__builtin_expect(detail::g_tsc.mode.load(std::memory_order_acquire) == detail::kTsc, 1))
        return __builtin_ia32_rdtsc() | kRawTickBit;
#endif
    return detail::now_ns_slow();
}

// deferred_now() for a caller with a path of its own for the other case: false (and nothing read)
// unless the TSC is in use; then `tick` is the tagged raw tick.
inline bool raw_tick_now(uint64_t &tick) {
#if defined(__x86_64__)
    if (__builtin_expect(detail::g_tsc.mode.load(std::memory_order_acquire) == detail::kTsc, 1)) {
        tick = __builtin_ia32_rdtsc() | kRawTickBit;
        return true;
    }
#endif
    (void)tick;
    return false;
}

// Whether deferred_now() stores raw ticks now. Once true, true for good: the TSC, once in use, is
// never given up.
inline bool raw_ticks_in_use() {
#if defined(__x86_64__)
    return detail::g_tsc.mode.load(std::memory_order_acquire) == detail::kTsc;
#else
    return false;
#endif
}

// The tagged raw tick now, for a caller that saw raw_ticks_in_use().
inline uint64_t raw_tick() {
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc() | kRawTickBit;
#else
    return kRawTickBit;  // never called: raw ticks are never in use here
#endif
}

namespace detail {
// How many conversions have been published: a TickConverter's copy is current while it holds.
extern std::atomic<uint64_t> g_steers_published;
}  // namespace detail

// Converts tagged raw ticks to epoch nanoseconds, each with the conversion published last
// before it was read (the last kSteersKept conversions are kept; older ticks use the oldest).
// It keeps a copy of the conversion it used last and looks again (under the calibration lock)
// only when a tick falls outside it or a new one was published: once per steer, not per record.
// Not thread-safe: one per consumer (ActivityEngine's, under its consumer lock).
class TickConverter {
public:
    uint64_t to_epoch(uint64_t raw_tick) {
        uint64_t tsc = raw_tick & ~kRawTickBit;
        // The drain converts every marker: the steer's base and the epoch offset are folded into
        // offset_, and from_ is the steer's first tick, so the common case is one multiply.
        if (__builtin_expect(tsc >= from_ && tsc < until_ &&
                                 detail::g_steers_published.load(std::memory_order_acquire) == published_,
                             1))
            return offset_ + static_cast<uint64_t>((static_cast<unsigned __int128>(tsc - from_) * mult_) >> 32);
        return to_epoch_slow(tsc);
    }

    static constexpr unsigned kSteersKept = 64;  // 6.4 s of steering every 100 ms

    // to_epoch()'s common case as values a loop keeps in registers (the drain's run of markers):
    // a stored timestamp `t` with t - from < span (unsigned) is a raw tick inside the copy, and
    // converts to offset + ((t - from) * mult >> 32). Anything else (a value that is not a raw
    // tick wraps past span too) takes the caller's other path: to_epoch() for a raw tick, after
    // which the window is read again.
    // Empty when a newer conversion was published since the copy was made. The published count
    // is checked once per window, not per record: a conversion published while a run is copied
    // is taken up from the next run on, as it would have been had the run been copied a moment earlier.
    struct Window {
        uint64_t from, span, mult, offset;
    };
    Window window() const {
        if (until_ <= from_ || detail::g_steers_published.load(std::memory_order_acquire) != published_)
            return Window{0, 0, 0, 0};
        return Window{from_ | kRawTickBit, (until_ | kRawTickBit) - (from_ | kRawTickBit), mult_, offset_};
    }

private:
    uint64_t to_epoch_slow(uint64_t tsc);

    detail::Steer steer_{};
    uint64_t from_ = 1, until_ = 0;  // the ticks steer_ covers (none yet); from_ is its tsc_base
    uint64_t mult_ = 0;  // steer_.mult_q32
    uint64_t offset_ = 0;  // steer_.mono_base + the epoch offset
    uint64_t published_ = 0;  // g_steers_published when steer_ was copied
};

namespace detail {
uint64_t monotonic_to_epoch_slow(uint64_t monotonic_ns);
}

// Maps a CLOCK_MONOTONIC nanosecond value to epoch nanoseconds (the device's times, per record).
inline uint64_t monotonic_to_epoch(uint64_t monotonic_ns) {
    // Once the mode has left kMonotonic the offset is set (it is written first).
    if (__builtin_expect(detail::g_tsc.mode.load(std::memory_order_acquire) != detail::kMonotonic, 1))
        return monotonic_ns + detail::g_tsc.epoch_offset;
    return detail::monotonic_to_epoch_slow(monotonic_ns);
}

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
