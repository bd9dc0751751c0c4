// libprofapi.so: the registry of a profiler's report callbacks, the profiling command, hash ids, type
// names and device states. The runtime reads gate() before building a report, so a process where no
// profiler registered callbacks and switched reports on builds none.
#include "profapi.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#define PROFAPI_EXPORT __attribute__((visibility("default")))

namespace vnpu::profapi {
namespace {

constexpr int32_t kOk = 0;
constexpr int32_t kError = 5;  // PROFAPI_ERROR

using ApiFn = int32_t (*)(uint32_t, const MsprofApi *);
using CompactFn = int32_t (*)(uint32_t, const void *, uint32_t);
using HashFn = uint64_t (*)(const char *, size_t);
using TypeInfoFn = int32_t (*)(uint16_t, uint32_t, const char *, size_t);
using DeviceStateFn = int32_t (*)(void *, uint32_t);

struct TypeInfo {
    uint16_t level;
    uint32_t type;
    std::string name;
};

// Everything but the callbacks is guarded by mu; callbacks are read lock-free on the report path.
struct State {
    std::atomic<void *> callbacks[kCallbackTypeCount]{};
    std::atomic<DeviceStateFn> legacyDeviceState{nullptr};  // profRegDeviceStateCallback
    Gate gate;
    std::mutex mu;
    uint64_t deviceSwitch[kMaxDevices]{};
    std::vector<TypeInfo> types;
    std::set<uint32_t> openDevices;
    uint32_t chipId = 5;
};

// VNPU_HOST_CLOCK_DRIFT_PPM: a whole number in [0, 100000], else 0 (with a line naming the value).
uint64_t host_drift_ppm() {
    constexpr unsigned long long kMax = 100000;
    const char *text = std::getenv("VNPU_HOST_CLOCK_DRIFT_PPM");
    if (text == nullptr || *text == '\0') {
        return 0;
    }
    char *end = nullptr;
    errno = 0;
    const unsigned long long value = std::strtoull(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || *text == '-' || value > kMax) {
        std::fprintf(stderr,
                     "libprofapi: VNPU_HOST_CLOCK_DRIFT_PPM=\"%s\" is not a whole number in [0, %llu]; using 0\n", text,
                     kMax);
        return 0;
    }
    return value;
}

State &state() {
    static auto *s = new State;  // leaked on purpose: reports may arrive during process exit
    return *s;
}

// Recomputes the gate from the devices' switches and the registered callbacks (caller holds mu).
void update_gate(State &s) {
    uint64_t any = 0;
    for (uint64_t sw : s.deviceSwitch) {
        any |= sw;
    }
    s.gate.api.store(s.callbacks[kReportApiC].load() != nullptr ? any : 0, std::memory_order_release);
    s.gate.compact.store(s.callbacks[kReportCompact].load() != nullptr ? any : 0, std::memory_order_release);
}

uint64_t fnv1a(const char *text, size_t len) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; ++i) {
        h = (h ^ static_cast<unsigned char>(text[i])) * 1099511628211ULL;
    }
    return h;
}

void notify_device(const ProfSetDevPara &para, DeviceStateFn fn) {
    ProfSetDevPara copy = para;
    if (fn != nullptr) {
        fn(&copy, sizeof copy);
    }
}

// Hands the devices that are open now to a device-state callback that was just registered, as a
// profiler that subscribes after aclrtSetDevice still learns of the device.
void replay_open_devices(DeviceStateFn fn) {
    if (fn == nullptr) {
        return;
    }
    State &s = state();
    std::vector<ProfSetDevPara> open;
    {
        std::lock_guard<std::mutex> lock(s.mu);
        for (uint32_t dev : s.openDevices) {
            open.push_back(ProfSetDevPara{s.chipId, dev, true});
        }
    }
    for (const ProfSetDevPara &para : open) {
        notify_device(para, fn);
    }
}

void replay_types(TypeInfoFn fn) {
    if (fn == nullptr) {
        return;
    }
    std::vector<TypeInfo> types;
    {
        std::lock_guard<std::mutex> lock(state().mu);
        types = state().types;
    }
    for (const TypeInfo &t : types) {
        fn(t.level, t.type, t.name.c_str(), t.name.size());
    }
}

}  // namespace
}  // namespace vnpu::profapi

using namespace vnpu::profapi;

extern "C" {

PROFAPI_EXPORT int32_t MsprofRegisterProfileCallback(int32_t callbackType, void *callback, uint32_t len) {
    if (callbackType < 0 || callbackType >= kCallbackTypeCount || len != sizeof(void *)) {
        std::fprintf(stderr,
                     "libprofapi: MsprofRegisterProfileCallback(type=%d, len=%u): type must be 0..%d and len %zu\n",
                     callbackType, len, kCallbackTypeCount - 1, sizeof(void *));
        return kError;
    }
    State &s = state();
    {
        std::lock_guard<std::mutex> lock(s.mu);
        s.callbacks[callbackType].store(callback, std::memory_order_release);
        s.gate.callbacks.fetch_add(1, std::memory_order_release);
        update_gate(s);
    }
    if (callbackType == kRegTypeInfoC) {
        replay_types(reinterpret_cast<TypeInfoFn>(callback));
    } else if (callbackType == kDeviceStateC) {
        replay_open_devices(reinterpret_cast<DeviceStateFn>(callback));
    }
    return kOk;
}

PROFAPI_EXPORT int32_t profRegDeviceStateCallback(int32_t (*handle)(void *deviceState, uint32_t len)) {
    state().legacyDeviceState.store(handle, std::memory_order_release);
    replay_open_devices(handle);
    return kOk;
}

PROFAPI_EXPORT int32_t profSetProfCommand(void *command, uint32_t len) {
    if (command == nullptr || len != sizeof(CommandHandle)) {
        std::fprintf(stderr, "libprofapi: profSetProfCommand(command=%p, len=%u): needs a CommandHandle of %zu bytes\n",
                     command, len, sizeof(CommandHandle));
        return kError;
    }
    CommandHandle cmd;
    std::memcpy(&cmd, command, sizeof cmd);
    if (cmd.devNums > kMaxDevices) {
        std::fprintf(stderr, "libprofapi: profSetProfCommand: devNums %u exceeds %u\n", cmd.devNums, kMaxDevices);
        return kError;
    }
    if (cmd.type != kCommandStart && cmd.type != kCommandStop) {
        return kOk;  // INIT and FINALIZE carry no switch
    }
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mu);
    for (uint32_t i = 0; i < cmd.devNums; ++i) {
        const uint32_t dev = cmd.devIdList[i];
        if (dev >= kMaxDevices) {
            std::fprintf(stderr, "libprofapi: profSetProfCommand: device id %u exceeds %u\n", dev, kMaxDevices - 1);
            return kError;
        }
        if (cmd.type == kCommandStart) {
            s.deviceSwitch[dev] |= cmd.profSwitch;
        } else {
            s.deviceSwitch[dev] &= ~cmd.profSwitch;
        }
    }
    update_gate(s);
    return kOk;
}

PROFAPI_EXPORT uint64_t MsprofGetHashId(const char *hashInfo, size_t length) {
    if (hashInfo == nullptr) {
        return 0;
    }
    auto fn = reinterpret_cast<HashFn>(state().callbacks[kGetHashIdC].load(std::memory_order_acquire));
    return fn != nullptr ? fn(hashInfo, length) : fnv1a(hashInfo, length);
}

PROFAPI_EXPORT int32_t MsprofRegTypeInfo(uint16_t level, uint32_t typeId, const char *typeName) {
    if (typeName == nullptr) {
        return kError;
    }
    State &s = state();
    {
        std::lock_guard<std::mutex> lock(s.mu);
        s.types.push_back(TypeInfo{level, typeId, typeName});
    }
    auto fn = reinterpret_cast<TypeInfoFn>(s.callbacks[kRegTypeInfoC].load(std::memory_order_acquire));
    if (fn != nullptr) {
        fn(level, typeId, typeName, std::strlen(typeName));
    }
    return kOk;
}

PROFAPI_EXPORT int32_t MsprofReportApi(uint32_t agingFlag, const MsprofApi *api) {
    auto fn = reinterpret_cast<ApiFn>(state().callbacks[kReportApiC].load(std::memory_order_acquire));
    if (api == nullptr || fn == nullptr) {
        return kError;
    }
    return fn(agingFlag, api);
}

PROFAPI_EXPORT int32_t MsprofReportCompactInfo(uint32_t agingFlag, const void *data, uint32_t length) {
    auto fn = reinterpret_cast<CompactFn>(state().callbacks[kReportCompact].load(std::memory_order_acquire));
    if (data == nullptr || length != sizeof(MsprofCompactInfo) || fn == nullptr) {
        return kError;
    }
    return fn(agingFlag, data, length);
}

PROFAPI_EXPORT int32_t MsprofNotifySetDevice(uint32_t chipId, uint32_t deviceId, bool isOpen) {
    State &s = state();
    {
        std::lock_guard<std::mutex> lock(s.mu);
        s.chipId = chipId;
        if (isOpen) {
            s.openDevices.insert(deviceId);
        } else {
            s.openDevices.erase(deviceId);
        }
    }
    const ProfSetDevPara para{chipId, deviceId, isOpen};
    notify_device(para, reinterpret_cast<DeviceStateFn>(s.callbacks[kDeviceStateC].load(std::memory_order_acquire)));
    notify_device(para, s.legacyDeviceState.load(std::memory_order_acquire));
    return kOk;
}

// Host timestamps: CLOCK_MONOTONIC_RAW ns, which is what msPTI takes host times to be when the driver
// reports no host oscillator (libascend_hal's halGetAPIVersion). VNPU_HOST_CLOCK_DRIFT_PPM=N makes
// this clock run N parts per million fast from its first reading, as CLOCK_MONOTONIC_RAW drifts
// against an NTP-slewed CLOCK_MONOTONIC (faster here, so a test sees the drift within seconds).
PROFAPI_EXPORT uint64_t MsprofSysCycleTime(void) {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    const uint64_t raw = static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
    static const uint64_t ppm = host_drift_ppm();
    if (ppm == 0) {
        return raw;
    }
    static const uint64_t first = raw;
    const uint64_t since = raw > first ? raw - first : 0;
    return raw + static_cast<uint64_t>(static_cast<unsigned __int128>(since) * ppm / 1000000U);
}

PROFAPI_EXPORT const Gate *vnpuProfapiGate(void) { return &state().gate; }

}  // extern "C"
