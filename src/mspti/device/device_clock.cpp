#include "device/device_clock.h"

#include <ctime>

namespace mspti::device {

uint64_t read_clock_ns(int id) {
    timespec ts{};
    clock_gettime(static_cast<clockid_t>(id), &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

uint64_t host_to_monotonic(uint64_t t, const HostSync &sync) {
    int64_t delta = static_cast<int64_t>(t - sync.sync_ticks);
    if (sync.freq_per_ms != 0) delta = detail::scale(delta, static_cast<int64_t>(sync.freq_per_ms));
    return sync.sync_mono_ns + static_cast<uint64_t>(delta);
}

HostSync host_sync_now(const HostSync &base, uint64_t (*report_clock)(), uint64_t (*reference)()) {
    constexpr uint64_t kGoodGapNs = 2000;
    HostSync best = base;
    uint64_t best_gap = ~0ull;
    for (int i = 0; i < 4 && best_gap > kGoodGapNs; ++i) {
        const uint64_t a = reference();
        const uint64_t t = report_clock != nullptr ? report_clock() : read_clock_ns(CLOCK_MONOTONIC_RAW);
        const uint64_t b = reference();
        if (b - a < best_gap) {
            best_gap = b - a;
            best.sync_ticks = t;
            best.sync_mono_ns = a + (b - a) / 2;
        }
    }
    return best;
}

uint64_t host_to_reference(uint64_t t, const HostSync &now, const HostSync &first) {
    constexpr int64_t kMinSpanNs = 100 * detail::kNsPerMs;
    const auto f = static_cast<int64_t>(now.freq_per_ms);
    auto ns = [f](int64_t ticks) { return f != 0 ? detail::scale(ticks, f) : ticks; };
    int64_t back = ns(static_cast<int64_t>(t - now.sync_ticks));
    const int64_t span_report = ns(static_cast<int64_t>(now.sync_ticks - first.sync_ticks));
    const auto span_reference = static_cast<int64_t>(now.sync_mono_ns - first.sync_mono_ns);
    if (span_report > kMinSpanNs && span_reference > 0)
        back = static_cast<int64_t>(static_cast<__int128>(back) * span_reference / span_report);
    return now.sync_mono_ns + static_cast<uint64_t>(back);
}

HostSync raw_host_sync() {
    // The raw reading between two monotonic ones: the pair is off by at most half their gap.
    uint64_t a = read_clock_ns(CLOCK_MONOTONIC);
    uint64_t raw = read_clock_ns(CLOCK_MONOTONIC_RAW);
    uint64_t b = read_clock_ns(CLOCK_MONOTONIC);
    return HostSync{0, raw, a + (b - a) / 2};
}

void DeviceClocks::set(uint32_t device, const DeviceSync &sync) {
    if (device >= kMaxDevices) return;
    Slot &s = slots_[device];
    s.ticks.store(sync.sync_ticks, std::memory_order_relaxed);
    s.mono.store(sync.sync_mono_ns, std::memory_order_relaxed);
    s.freq.store(sync.freq_per_ms, std::memory_order_release);
}

bool DeviceClocks::known(uint32_t device) const {
    return device < kMaxDevices && slots_[device].freq.load(std::memory_order_acquire) != 0;
}

}  // namespace mspti::device
