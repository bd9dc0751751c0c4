// The virtual NPU's reports to the virtual CANN's profiling interfaces (see prof_reports.h).
#include "prof_reports.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <ctime>
#include <map>
#include <mutex>
#include <string>

#include "ascend_hal.h"
#include "profapi.h"

namespace vnpu::cann {
namespace {

namespace pa = vnpu::profapi;

constexpr uint32_t kAgingOn = 1;  // eager (non-graph) work
constexpr uint64_t kTrackSwitches = pa::kSwitchTaskTime | pa::kSwitchRuntimeTrace;
constexpr const char *kHcclTaskType = "HCCL";  // not "KERNEL...": msPTI makes no KERNEL record of it

const pa::Gate &gate() {
    static const pa::Gate *g = vnpuProfapiGate();
    return *g;
}

uint64_t clock_ns(clockid_t id) {
    timespec ts{};
    clock_gettime(id, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

// Host reports carry MsprofSysCycleTime's clock (CLOCK_MONOTONIC_RAW ns, see libascend_hal); the
// runtime measures CLOCK_MONOTONIC. This is what to add to convert, read as the report is sent; one
// offset serves every time of one report, so their order holds.
uint64_t host_offset() {
    // The report clock read between two CLOCK_MONOTONIC readings, at their midpoint; read again (up to
    // 4 times) while they lie more than 2 us apart: a preemption between them would skew every time of
    // the report by as long.
    constexpr uint64_t kGoodGapNs = 2000;
    uint64_t best = 0;
    uint64_t best_gap = ~uint64_t{0};
    for (int i = 0; i < 4 && best_gap > kGoodGapNs; ++i) {
        const uint64_t a = clock_ns(CLOCK_MONOTONIC);
        const uint64_t report = MsprofSysCycleTime();
        const uint64_t b = clock_ns(CLOCK_MONOTONIC);
        if (b - a < best_gap) {
            best_gap = b - a;
            best = report - (a + (b - a) / 2);
        }
    }
    return best;
}

// A task's hash id and type id, asked for once per thread and pair of names, as CANN's runtime keeps
// them with the kernel rather than asking per launch. Both names are static storage, so the pointers
// identify them. A hash id is the registered profiler's answer (callback 12): it is asked again once
// any callback was registered since (the gate's count).
struct TaskIds {
    const char *name = nullptr;
    const char *type = nullptr;
    uint64_t callbacks = 0;
    uint64_t hash = 0;
    uint16_t typeId = 0;
};

// One thread_local for the thread id and the ids: one TLS lookup per track report.
struct ThreadState {
    uint32_t tid = 0;
    TaskIds ids[16];
};
thread_local ThreadState t_state;

uint32_t thread_id(ThreadState &t) {
    if (t.tid == 0) {
        t.tid = static_cast<uint32_t>(syscall(SYS_gettid));
    }
    return t.tid;
}

uint32_t thread_id() { return thread_id(t_state); }

// Type ids registered with MsprofRegTypeInfo, one id space per (level, first id). Callers pass the
// same static names again and again: a per-thread cache answers those with no lock and no allocation
// (each kernel's track report names its type).
uint32_t type_id(uint16_t level, uint32_t first, const char *name) {
    static std::mutex mu;
    static auto *ids = new std::map<std::pair<uint32_t, std::string>, uint32_t>;
    static auto *next = new std::map<uint32_t, uint32_t>;
    const uint32_t space = (static_cast<uint32_t>(level) << 16) | first;
    struct Cached {
        uint32_t space;
        const char *key;  // the caller's pointer
        const char *stored;  // the map's copy: a pointer reused for another name is caught by its text
        uint32_t id;
    };
    static thread_local Cached cache[16] = {};
    const auto v = reinterpret_cast<uintptr_t>(name);
    Cached &hit = cache[((v >> 3) ^ (v >> 7) ^ space) & 15];
    if (hit.key == name && hit.space == space && hit.stored != nullptr && std::strcmp(hit.stored, name) == 0) {
        return hit.id;
    }
    std::lock_guard<std::mutex> lock(mu);
    auto [it, inserted] = ids->emplace(std::make_pair(space, std::string(name)), 0);
    if (inserted) {
        auto [n, fresh] = next->emplace(space, first);
        it->second = n->second++;
        MsprofRegTypeInfo(level, it->second, name);
    }
    hit = Cached{space, name, it->first.second.c_str(), it->second};
    return it->second;
}

uint64_t hash_id(const char *name) { return MsprofGetHashId(name, std::strlen(name)); }

uint64_t api_switch(ApiLevel level) {
    switch (level) {
    case ApiLevel::kAcl:
    case ApiLevel::kNode: return pa::kSwitchAclApi;
    case ApiLevel::kHccl:
        return pa::kSwitchHcclTrace | pa::kSwitchAclApi;  // the HCCL API, or the node launch around it
    case ApiLevel::kRuntime: return pa::kSwitchRuntimeApi;
    }
    return 0;
}

void send_api(uint16_t level, uint32_t type, uint64_t item, uint64_t begin_ns, uint64_t end_ns, uint64_t offset) {
    pa::MsprofApi api;
    api.level = level;
    api.type = type;
    api.threadId = thread_id();
    api.beginTime = begin_ns + offset;
    api.endTime = end_ns + offset;
    api.itemId = item;
    MsprofReportApi(kAgingOn, &api);
}

// A collective's operation name, from its enqueue to the end of the HCCL API that enqueued it, when the
// node launch around the HCCL API is reported (HCCL's op sits inside its launch, as CANN nests them).
thread_local const char *t_pendingOp = nullptr;

std::atomic<uint32_t> g_taskIds[64];

Task new_task(uint32_t device_id, uint32_t stream_id) {
    Task t;
    t.on = true;
    t.deviceId = device_id;
    t.streamId = stream_id;
    t.taskId = g_taskIds[device_id % 64].fetch_add(1, std::memory_order_relaxed);
    return t;
}

// `name` and `type`: static storage (see TaskIds). The caller passes its thread's t_state and the gate:
// read here, GCC computed t_state's address again after each call (three __tls_get_addr per launch). Not
// noinline but noipa: GCC would propagate &t_state into a clone of it and compute it there again.
[[gnu::noipa]] void send_track(ThreadState &ts, const pa::Gate &g, const Task &t, const char *type, const char *name) {
    const uint64_t callbacks = g.callbacks.load(std::memory_order_acquire);
    const auto v = reinterpret_cast<uintptr_t>(name);
    TaskIds &ids = ts.ids[((v >> 4) ^ (v >> 10)) & 15];
    if (ids.name != name || ids.type != type || ids.callbacks != callbacks) {
        ids = TaskIds{name, type, callbacks, hash_id(name), static_cast<uint16_t>(type_id(pa::kLevelRuntime, 1, type))};
    }
    pa::MsprofCompactInfo c;
    c.level = pa::kLevelRuntime;
    c.type = pa::kTypeTaskTrack;
    c.threadId = thread_id(ts);
    c.dataLen = sizeof(pa::MsprofRuntimeTrack);
    c.timeStamp = MsprofSysCycleTime();
    c.data.runtimeTrack.deviceId = static_cast<uint16_t>(t.deviceId);
    c.data.runtimeTrack.streamId = static_cast<uint16_t>(t.streamId);
    c.data.runtimeTrack.taskInfo = t.taskId;
    c.data.runtimeTrack.taskType = ids.typeId;
    c.data.runtimeTrack.kernelName = ids.hash;
    MsprofReportCompactInfo(kAgingOn, &c, sizeof c);
}

}  // namespace

bool api_wanted(ApiLevel level) noexcept {
    return (gate().api.load(std::memory_order_relaxed) & api_switch(level)) != 0;
}

void report_api(ApiLevel level, const char *name, uint64_t begin_ns, uint64_t end_ns) noexcept {
    const uint64_t on = gate().api.load(std::memory_order_acquire);
    if (level == ApiLevel::kHccl) {
        const char *op = t_pendingOp;
        t_pendingOp = nullptr;
        const uint64_t offset = host_offset();
        if ((on & pa::kSwitchHcclTrace) != 0) {
            send_api(pa::kLevelHccl, 0, hash_id(name), begin_ns, end_ns, offset);
        }
        if (op != nullptr && (on & (pa::kSwitchAclApi | pa::kSwitchHcclTrace)) != 0) {
            send_api(pa::kLevelNode, pa::kTypeNodeLaunch, hash_id(op), begin_ns, clock_ns(CLOCK_MONOTONIC), offset);
        }
        return;
    }
    if ((on & api_switch(level)) == 0) {
        return;
    }
    const uint64_t offset = host_offset();
    switch (level) {
    case ApiLevel::kAcl: send_api(pa::kLevelAcl, type_id(pa::kLevelAcl, 1, name), 0, begin_ns, end_ns, offset); break;
    case ApiLevel::kNode: send_api(pa::kLevelNode, pa::kTypeNodeLaunch, hash_id(name), begin_ns, end_ns, offset); break;
    case ApiLevel::kRuntime:
        send_api(pa::kLevelRuntime, type_id(pa::kLevelRuntime, pa::kTypeRuntimeApiBase, name), 0, begin_ns, end_ns,
                 offset);
        break;
    default: break;
    }
}

Task kernel_enqueued(const KernelInfo &info) noexcept {
    const pa::Gate &g = gate();
    const bool track = (g.compact.load(std::memory_order_acquire) & kTrackSwitches) != 0;
    if (!track && vnpuHalChannelOn(info.deviceId, vnpu::hal::kChannelStarsSocLog) == 0) {
        return {};
    }
    Task t = new_task(info.deviceId, info.streamId);
    if (track) {
        send_track(t_state, g, t, info.type, info.name);
    }
    return t;
}

Task collective_enqueued(const CollectiveInfo &info) noexcept {
    const uint64_t compact = gate().compact.load(std::memory_order_acquire);
    const uint64_t api = gate().api.load(std::memory_order_acquire);
    const bool track = (compact & kTrackSwitches) != 0;
    if (!track && (compact & pa::kSwitchHcclTrace) == 0 && (api & pa::kSwitchHcclTrace) == 0 &&
        vnpuHalChannelOn(info.deviceId, vnpu::hal::kChannelStarsSocLog) == 0) {
        return {};
    }
    Task t = new_task(info.deviceId, info.streamId);
    if (track) {
        send_track(t_state, gate(), t, kHcclTaskType, info.opName);
    }
    if ((compact & pa::kSwitchHcclTrace) != 0) {
        pa::MsprofCompactInfo c;
        c.level = pa::kLevelNode;
        c.type = pa::kTypeHcclOpInfo;
        c.threadId = thread_id();
        c.dataLen = sizeof(pa::MsprofHcclOPInfo);
        c.timeStamp = MsprofSysCycleTime();
        c.data.hcclopInfo.dataType = static_cast<uint8_t>(info.dataType);
        c.data.hcclopInfo.algType = hash_id(info.algType);
        c.data.hcclopInfo.count = info.count;
        c.data.hcclopInfo.groupName = hash_id(info.commName);
        MsprofReportCompactInfo(kAgingOn, &c, sizeof c);
    }
    t_pendingOp = info.opName;
    return t;
}

void task_executed(const Task &task, uint64_t start_ns, uint64_t end_ns) noexcept {
    if (task.on) {
        // One call and one lock for both records; a stopped channel takes neither.
        vnpuHalWriteTaskSpan(task.deviceId, task.streamId, task.taskId, start_ns, end_ns);
    }
}

Task trace_enqueued(uint32_t device_id, uint32_t stream_id, const void *data, int32_t length,
                    TracePayload &payload) noexcept {
    constexpr int32_t kPayloadBytes = 18;
    if (length != kPayloadBytes || vnpuHalChannelOn(device_id, vnpu::hal::kChannelTsFw) == 0) {
        return {};
    }
    const auto *bytes = static_cast<const unsigned char *>(data);
    std::memcpy(&payload.indexId, bytes, 8);
    std::memcpy(&payload.modelId, bytes + 8, 8);
    std::memcpy(&payload.tagId, bytes + 16, 2);
    return new_task(device_id, stream_id);
}

void trace_reached(const Task &task, const TracePayload &payload, uint64_t now_ns) noexcept {
    if (!task.on) {
        return;
    }
    vnpuHalWriteStepTrace(task.deviceId, task.streamId, task.taskId, payload.indexId, payload.modelId, payload.tagId,
                          vnpuHalTicks(now_ns));
}

void device_state(int32_t device_id, bool open) noexcept {
    constexpr uint32_t kDrainTimeoutMs = 5000;  // a profiler that stopped reading does not hold the close
    if (!open) {
        // As a driver delivers a closing device's profiling data: the records of its last tasks reach the
        // profiler before the program goes on to tear its profiling down.
        vnpuHalDrain(static_cast<uint32_t>(device_id), kDrainTimeoutMs);
    }
    MsprofNotifySetDevice(vnpuHalChipId(), static_cast<uint32_t>(device_id), open);
}

}  // namespace vnpu::cann
