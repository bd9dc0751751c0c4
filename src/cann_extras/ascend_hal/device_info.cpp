// libascend_hal.so, devices: count (VNPU_DEVICE_COUNT, as the runtime reads it), chip id (VNPU_CHIP)
// and the device clock. The counter runs off CLOCK_MONOTONIC at VNPU_DEVICE_TICKS_PER_MS (default
// 50000: 50 MHz) from VNPU_DEVICE_CLOCK_OFFSET ticks (default 0), so SYS_COUNT, DEV_OSC_FREQUE and
// every record's timestamp agree, and a profiler must convert as on hardware: a device counter is
// neither the host's clock nor its rate. The driver reports no host oscillator (API version below
// 0x071905), so a profiler takes host timestamps as CLOCK_MONOTONIC_RAW ns.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "ascend_hal.h"
#include "device_info.h"

#define HAL_EXPORT __attribute__((visibility("default")))

namespace vnpu::hal {
namespace {

uint32_t device_count() {
    static const uint32_t count = [] {
        const char *text = std::getenv("VNPU_DEVICE_COUNT");
        if (text != nullptr && *text != '\0') {
            char *end = nullptr;
            long value = std::strtol(text, &end, 10);
            if (end != nullptr && *end == '\0' && value >= 1 && value <= 64) {
                return static_cast<uint32_t>(value);
            }
        }
        return 8U;
    }();
    return count;
}

uint32_t chip_from_env() {
    const char *text = std::getenv("VNPU_CHIP");
    if (text == nullptr || *text == '\0' || std::strcmp(text, "910B") == 0) {
        return kChip910B;
    }
    if (std::strcmp(text, "310B") == 0) {
        return kChip310B;
    }
    if (std::strcmp(text, "V6") == 0) {
        return kChipV6;
    }
    std::fprintf(stderr, "libascend_hal: VNPU_CHIP=\"%s\" is not one of 910B, 310B, V6; using 910B\n", text);
    return kChip910B;
}

// A whole number from the environment in [low, high], else `fallback` (with a line saying why).
uint64_t env_number(const char *name, uint64_t fallback, uint64_t low, uint64_t high) {
    const char *text = std::getenv(name);
    if (text == nullptr || *text == '\0') {
        return fallback;
    }
    char *end = nullptr;
    errno = 0;
    const unsigned long long value = std::strtoull(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || *text == '-' || value < low || value > high) {
        std::fprintf(stderr, "libascend_hal: %s=\"%s\" is not a whole number in [%llu, %llu]; using %llu\n", name, text,
                     static_cast<unsigned long long>(low), static_cast<unsigned long long>(high),
                     static_cast<unsigned long long>(fallback));
        return fallback;
    }
    return value;
}

uint64_t ticks_per_ms() {
    static const uint64_t f = env_number("VNPU_DEVICE_TICKS_PER_MS", kTicksPerMs, 1, 1000000000ULL);
    return f;
}

uint64_t clock_offset() {
    static const uint64_t o = env_number("VNPU_DEVICE_CLOCK_OFFSET", 0, 0, 1ULL << 62);
    return o;
}

uint64_t mono_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

const TickRate &tick_rate() {
    static const TickRate rate{ticks_per_ms(), clock_offset()};
    return rate;
}

uint32_t chip_id() {
    static const uint32_t chip = chip_from_env();
    return chip;
}

}  // namespace vnpu::hal

using namespace vnpu::hal;

extern "C" {

HAL_EXPORT uint32_t vnpuHalChipId(void) { return chip_id(); }

HAL_EXPORT uint64_t vnpuHalTicks(uint64_t monoNs) { return to_ticks(monoNs, tick_rate()); }

HAL_EXPORT int drvGetDevNum(uint32_t *count) {
    if (count == nullptr) {
        return kDrvErrorInvalidValue;
    }
    *count = device_count();
    return kDrvErrorNone;
}

HAL_EXPORT int drvGetDevIDs(uint32_t *devices, uint32_t len) {
    if (devices == nullptr || len < device_count()) {
        return kDrvErrorInvalidValue;
    }
    for (uint32_t i = 0; i < device_count(); ++i) {
        devices[i] = i;
    }
    return kDrvErrorNone;
}

HAL_EXPORT int halGetDeviceInfo(uint32_t deviceId, int32_t moduleType, int32_t infoType, int64_t *value) {
    (void)moduleType;
    if (value == nullptr) {
        return kDrvErrorInvalidValue;
    }
    if (deviceId >= device_count()) {
        return kDrvErrorNoDevice;
    }
    switch (infoType) {
    case kInfoVersion: *value = static_cast<int64_t>(vnpuHalChipId()) << 8; return kDrvErrorNone;
    case kInfoSysCount: *value = static_cast<int64_t>(vnpuHalTicks(mono_ns())); return kDrvErrorNone;
    case kInfoDevOscFreq: *value = static_cast<int64_t>(ticks_per_ms()); return kDrvErrorNone;
    default: return kDrvErrorNotSupport;  // HOST_OSC_FREQUE among them: see the file comment
    }
}

HAL_EXPORT int halGetAPIVersion(int32_t *apiVersion) {
    if (apiVersion == nullptr) {
        return kDrvErrorInvalidValue;
    }
    *apiVersion = 0x071900;
    return kDrvErrorNone;
}

}  // extern "C"
