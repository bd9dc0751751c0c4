#include "core/buffer_limit.h"

#include <atomic>
#include <cstdlib>
#include <strings.h>

#include "common/diagnostics.h"

namespace mspti::buffer_limit {
namespace {

struct Settings {
    std::atomic<size_t> max_in_flight{kDefaultMaxInFlight};
    std::atomic<size_t> max_bytes{kDefaultMaxBytesInFlight};
    std::atomic<int> policy{MSPTI_EXT_BUFFER_LIMIT_DROP};
    std::atomic<uint32_t> wait_ms{kDefaultWaitMs};
};

// An unsigned number in [low, high] from the environment, else `fallback` (with a warning).
unsigned long env_number(const char *name, unsigned long low, unsigned long high, unsigned long fallback) {
    const char *text = std::getenv(name);
    if (text == nullptr) return fallback;
    char *end = nullptr;
    unsigned long value = std::strtoul(text, &end, 10);
    if (end == text || *end != '\0' || value < low || value > high) {
        log(LogLevel::Warning, "%s=%s is not a number in %lu..%lu: using %lu", name, text, low, high, fallback);
        return fallback;
    }
    return value;
}

Settings &settings() {
    static Settings *s = [] {
        auto *fresh = new Settings();  // leaked: read while the process exits
        fresh->max_in_flight.store(env_number("MSPTI_MAX_BUFFERS_IN_FLIGHT", 1, kMaxMaxInFlight, kDefaultMaxInFlight));
        fresh->max_bytes.store(env_number("MSPTI_MAX_BYTES_IN_FLIGHT", kMinMaxBytesInFlight, kMaxMaxBytesInFlight,
                                          kDefaultMaxBytesInFlight));
        fresh->wait_ms.store(static_cast<uint32_t>(env_number("MSPTI_BUFFER_WAIT_MS", 0, kMaxWaitMs, kDefaultWaitMs)));
        if (const char *text = std::getenv("MSPTI_BUFFER_LIMIT_POLICY")) {
            if (strcasecmp(text, "wait") == 0) {
                fresh->policy.store(MSPTI_EXT_BUFFER_LIMIT_WAIT);
            } else if (strcasecmp(text, "drop") != 0) {
                log(LogLevel::Warning, "MSPTI_BUFFER_LIMIT_POLICY=%s is not drop or wait: using drop", text);
            }
        }
        return fresh;
    }();
    return *s;
}

}  // namespace

size_t max_in_flight() { return settings().max_in_flight.load(std::memory_order_relaxed); }

size_t max_bytes_in_flight() { return settings().max_bytes.load(std::memory_order_relaxed); }

void set_max_bytes(size_t max) { settings().max_bytes.store(max, std::memory_order_relaxed); }

msptiExtBufferLimitPolicy policy() {
    return static_cast<msptiExtBufferLimitPolicy>(settings().policy.load(std::memory_order_relaxed));
}

uint32_t wait_ms() { return settings().wait_ms.load(std::memory_order_relaxed); }

void set(size_t max, msptiExtBufferLimitPolicy p, uint32_t wait) {
    Settings &s = settings();
    s.max_in_flight.store(max, std::memory_order_relaxed);
    s.policy.store(p, std::memory_order_relaxed);
    s.wait_ms.store(wait, std::memory_order_relaxed);
}

}  // namespace mspti::buffer_limit
