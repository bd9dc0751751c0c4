// Device counter -> host CLOCK_MONOTONIC ns, as on hardware: each device reports its counter
// (SYS_COUNT) and its frequency in ticks per ms (DEV_OSC_FREQUE); one sync pair (the counter read
// between two host readings, taken at their midpoint) anchors the conversion. Host reports carry
// CLOCK_MONOTONIC_RAW ns where the driver has no host oscillator (API version below 0x071905),
// else host counter ticks at HOST_OSC_FREQUE; both convert to CLOCK_MONOTONIC here, and from there
// to libmspti's epoch (core/clock).
#pragma once

#include <atomic>
#include <cstdint>

namespace mspti::device {

/// One device's conversion: ticks -> monotonic ns. Written once per channel start, read lock-free.
struct DeviceSync {
    uint64_t freq_per_ms = 0;  ///< 0: unknown (ticks taken as ns)
    uint64_t sync_ticks = 0;
    uint64_t sync_mono_ns = 0;
};

namespace detail {
constexpr int64_t kNsPerMs = 1000000;
/// delta ticks at `freq` ticks per ms, in ns, without overflow for deltas of years.
inline int64_t scale(int64_t delta, int64_t freq) {
    return (delta / freq) * kNsPerMs + (delta % freq) * kNsPerMs / freq;
}
}  // namespace detail

/// ns of monotonic time at device counter `ticks`, per `sync` (signed: ticks before the sync work).
/// In line: the reader converts two times per task.
inline uint64_t ticks_to_monotonic(uint64_t ticks, const DeviceSync &sync) {
    if (sync.freq_per_ms == 0) return ticks;
    int64_t delta = static_cast<int64_t>(ticks - sync.sync_ticks);
    return sync.sync_mono_ns + static_cast<uint64_t>(detail::scale(delta, static_cast<int64_t>(sync.freq_per_ms)));
}

/// Host report time conversion.
struct HostSync {
    uint64_t freq_per_ms = 0;  ///< 0: reports carry CLOCK_MONOTONIC_RAW ns
    uint64_t sync_ticks = 0;  ///< host counter (or raw ns) at the sync
    uint64_t sync_mono_ns = 0;
};

/// CLOCK_MONOTONIC ns of a host report time.
uint64_t host_to_monotonic(uint64_t t, const HostSync &sync);

/// A host sync for CLOCK_MONOTONIC_RAW report times, taken now.
HostSync raw_host_sync();

/// ns of clock `id` (a clockid_t) now.
uint64_t read_clock_ns(int id);

/// `base` (its frequency) anchored now: the report clock (`report_clock`, or CLOCK_MONOTONIC_RAW when
/// null) read between two readings of the reference clock `reference` (ns), at their midpoint; the
/// pair's sync_mono_ns is then reference ns. Read again, up to 4 times, while the readings lie more
/// than 2 us apart (a preemption between them would skew the pair by as long).
HostSync host_sync_now(const HostSync &base, uint64_t (*report_clock)(), uint64_t (*reference)());

/// Reference ns of report time `t`, from a pair read just now (`now`) and one read long before
/// (`first`), both by host_sync_now: `t`'s distance from `now` is scaled by the reference clock's
/// rate against the report clock over [first, now] (once that span exceeds 100 ms), so neither an
/// offset nor a rate difference between the two clocks since the start moves `t`.
uint64_t host_to_reference(uint64_t t, const HostSync &now, const HostSync &first);

/// Per-device syncs, set from the driver and read on the reader thread (seqlock-free: a device's
/// sync is published once before its channels start and only replaced while they are stopped).
class DeviceClocks {
public:
    static constexpr uint32_t kMaxDevices = 64;
    void set(uint32_t device, const DeviceSync &sync);
    /// Monotonic ns of `ticks` on `device`; `ticks` unchanged for a device with no sync.
    uint64_t to_monotonic(uint32_t device, uint64_t ticks) const { return ticks_to_monotonic(ticks, sync(device)); }
    /// `device`'s sync (freq_per_ms 0 for none), for converting several times of it with one read.
    DeviceSync sync(uint32_t device) const {
        DeviceSync out;
        if (device >= kMaxDevices) return out;  // no sync: ticks unchanged
        const Slot &s = slots_[device];
        out.freq_per_ms = s.freq.load(std::memory_order_acquire);
        out.sync_ticks = s.ticks.load(std::memory_order_relaxed);
        out.sync_mono_ns = s.mono.load(std::memory_order_relaxed);
        return out;
    }
    bool known(uint32_t device) const;

private:
    struct Slot {
        std::atomic<uint64_t> freq{0}, ticks{0}, mono{0};
    };
    Slot slots_[kMaxDevices];
};

}  // namespace mspti::device
