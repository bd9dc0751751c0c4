// A tiny stand-in for the virtual NPU, used by the interposer's unit tests so that they depend
// only on the runtime's C interface and Ascend's profiling interfaces: devices are ids, device
// memory is host memory, each stream runs its tasks on its own worker thread (as the vnpu does) and
// reports as CANN does, through the virtual CANN's libprofapi.so (host reports) and
// libascend_hal.so (device channel records). Some entry points (aclrtMemcpy2d) are deliberately
// missing, to test the interposer's "no real symbol" path.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>
#include <time.h>

#include "ascend_hal.h"
#include "interpose/acl_abi.h"
#include "profapi.h"

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

namespace pa = vnpu::profapi;
thread_local int32_t t_device = -1;

uint64_t clock_ns(clockid_t id) {
    timespec ts;
    clock_gettime(id, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}
uint64_t now_ns() { return clock_ns(CLOCK_MONOTONIC); }
// Host reports carry MsprofSysCycleTime's clock (CLOCK_MONOTONIC_RAW ns); times here are CLOCK_MONOTONIC.
uint64_t report_time(uint64_t mono) { return mono + (MsprofSysCycleTime() - now_ns()); }

const pa::Gate &gate() { return *vnpuProfapiGate(); }
constexpr uint64_t kTrack = pa::kSwitchTaskTime | pa::kSwitchRuntimeTrace;
constexpr uint32_t kTypeKernel = 1, kTypeHccl = 2;  // task types registered at level 5000

void register_types() {
    static const bool done = (MsprofRegTypeInfo(pa::kLevelRuntime, kTypeKernel, "KERNEL_AIVEC"),
                              MsprofRegTypeInfo(pa::kLevelRuntime, kTypeHccl, "HCCL"), true);
    (void)done;
}
uint64_t hash(const char *s) { return MsprofGetHashId(s, std::strlen(s)); }
std::atomic<uint32_t> g_task_ids{0};

// A task's track (compact 5000/802), if reports or the device's SoC log are on; its task id, or 0 for none.
uint32_t track(uint32_t device, uint32_t stream, uint32_t type, const char *name) {
    const bool tracked = (gate().compact.load() & kTrack) != 0;
    if (!tracked && vnpuHalChannelOn(device, vnpu::hal::kChannelStarsSocLog) == 0) return 0;
    const uint32_t task = g_task_ids.fetch_add(1) + 1;
    if (tracked) {
        register_types();
        pa::MsprofCompactInfo c;
        c.level = pa::kLevelRuntime;
        c.type = pa::kTypeTaskTrack;
        c.dataLen = sizeof(pa::MsprofRuntimeTrack);
        c.timeStamp = MsprofSysCycleTime();
        c.data.runtimeTrack = pa::MsprofRuntimeTrack{static_cast<uint16_t>(device), static_cast<uint16_t>(stream), task,
                                                     type, hash(name)};
        MsprofReportCompactInfo(1, &c, sizeof c);
    }
    return task;
}
void executed(uint32_t device, uint32_t stream, uint32_t task, uint64_t start, uint64_t end) {
    if (task == 0) return;
    vnpuHalWriteTaskLog(device, stream, task, 0, vnpuHalTicks(start));
    vnpuHalWriteTaskLog(device, stream, task, 1, vnpuHalTicks(end));
}
void report_node(const char *name, uint64_t begin, uint64_t end) {
    if ((gate().api.load() & (pa::kSwitchAclApi | pa::kSwitchHcclTrace)) == 0) return;
    pa::MsprofApi api;
    api.level = pa::kLevelNode;
    api.type = pa::kTypeNodeLaunch;
    api.beginTime = report_time(begin);
    api.endTime = report_time(end);
    api.itemId = hash(name);
    MsprofReportApi(1, &api);
}

struct Stream {
    uint32_t device;
    uint32_t id;
    std::mutex mutex;
    std::condition_variable cv;
    std::deque<std::function<void()>> tasks;
    bool busy = false;
    uint64_t last_end = 0;  // worker thread only
    bool stop = false;
    std::thread worker;

    Stream(uint32_t d, uint32_t i) : device(d), id(i), worker([this] { run(); }) {}
    ~Stream() {
        {
            std::lock_guard<std::mutex> lock(mutex);
            stop = true;
        }
        cv.notify_all();
        worker.join();
    }
    void push(std::function<void()> task) {
        {
            std::lock_guard<std::mutex> lock(mutex);
            tasks.push_back(std::move(task));
        }
        cv.notify_all();
    }
    void sync() {
        std::unique_lock<std::mutex> lock(mutex);
        cv.wait(lock, [this] { return tasks.empty() && !busy; });
    }
    void run() {
        std::unique_lock<std::mutex> lock(mutex);
        for (;;) {
            cv.wait(lock, [this] { return stop || !tasks.empty(); });
            if (tasks.empty()) return;
            auto task = std::move(tasks.front());
            tasks.pop_front();
            busy = true;
            lock.unlock();
            task();
            lock.lock();
            busy = false;
            cv.notify_all();
        }
    }
};

std::atomic<uint32_t> g_next_stream{1};
Stream *g_default[8] = {};
std::mutex g_default_mutex;

Stream *resolve(void *stream) {
    if (stream != nullptr) return static_cast<Stream *>(stream);
    int32_t d = t_device < 0 ? 0 : t_device;
    std::lock_guard<std::mutex> lock(g_default_mutex);
    if (g_default[d] == nullptr) g_default[d] = new Stream(static_cast<uint32_t>(d), 0);  // lives until exit
    return g_default[d];
}

aclError launch(void *stream, const char *name) {
    Stream *s = resolve(stream);
    const uint32_t task = track(s->device, s->id, kTypeKernel, name);
    s->push([s, task] {
        // Kernels on a stream never overlap and always take time (a device tick at least).
        uint64_t start = std::max(now_ns(), s->last_end);
        uint64_t end = std::max(now_ns(), start + 1000000 / vnpu::hal::kTicksPerMs);
        s->last_end = end;
        executed(s->device, s->id, task, start, end);
    });
    return 0;
}

// Internal versions: calls between exported functions would go through the interposer.
aclError do_malloc(void **p, size_t size) {
    if (p == nullptr || size == 0) return 100000;
    *p = std::aligned_alloc(64, (size + 63) / 64 * 64);
    return *p != nullptr ? 0 : 207001;
}
aclError do_free(void *p) {
    if (p == nullptr) return 100000;
    std::free(p);
    return 0;
}
aclError do_memcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind) {
    if (count == 0) return 0;
    if (dst == nullptr || src == nullptr || kind < 0 || kind > 5) return 100000;
    if (count > destMax) return 107000;
    std::memcpy(dst, src, count);
    return 0;
}
aclError do_memset(void *p, size_t maxCount, int32_t value, size_t count) {
    if (count == 0) return 0;
    if (p == nullptr || count > maxCount) return 100000;
    std::memset(p, value, count);
    return 0;
}

struct Comm {
    uint32_t ranks;
    char name[128];
};

}  // namespace

// Trace tasks (aclrtProfTrace): the 18-byte {indexId, modelId, tagId} comes back as a TS-FW step trace.
FAKE_EXPORT aclError aclrtProfTrace(void *userdata, int32_t length, aclrtStream stream) {
    if (userdata == nullptr || length != 18) return 100000;
    Stream *s = resolve(stream);
    if (vnpuHalChannelOn(s->device, vnpu::hal::kChannelTsFw) == 0) return 0;
    uint64_t index = 0, model = 0;
    uint16_t tag = 0;
    std::memcpy(&index, userdata, 8);
    std::memcpy(&model, static_cast<char *>(userdata) + 8, 8);
    std::memcpy(&tag, static_cast<char *>(userdata) + 16, 2);
    const uint32_t task = g_task_ids.fetch_add(1) + 1;
    s->push([s, task, index, model, tag] {
        vnpuHalWriteStepTrace(s->device, s->id, task, index, model, tag, vnpuHalTicks(now_ns()));
    });
    return 0;
}

// A node-level operator (like aclnnAdd): its host span is reported as a NODE API, and it launches
// through the exported (interposable) aclrtLaunchKernelWithHostArgs.
FAKE_EXPORT aclError fakeNodeOp(void *stream) {
    uint64_t begin = now_ns();
    char args[8] = {};
    aclError r = aclrtLaunchKernelWithHostArgs(nullptr, 1, stream, nullptr, args, sizeof(args), nullptr, 0);
    report_node("fakeAdd_AxpyAiCore_Axpy", begin, now_ns());
    return r;
}

// ACL runtime ------------------------------------------------------------------------------
FAKE_EXPORT aclError aclInit(const char *) { return 0; }
FAKE_EXPORT aclError aclrtSetDevice(int32_t d) {
    if (d < 0 || d >= 8) return 107001;
    t_device = d;
    static std::atomic<bool> opened[8];
    if (!opened[d].exchange(true)) MsprofNotifySetDevice(vnpuHalChipId(), static_cast<uint32_t>(d), true);
    return 0;
}
FAKE_EXPORT aclError aclrtResetDevice(int32_t) { return 0; }
FAKE_EXPORT aclError aclrtGetDevice(int32_t *d) {
    if (d == nullptr) return 100000;
    if (t_device < 0) return 107002;
    *d = t_device;
    return 0;
}
FAKE_EXPORT aclError aclrtCreateContext(aclrtContext *c, int32_t d) {
    t_device = d;
    *c = reinterpret_cast<void *>(static_cast<uintptr_t>(d + 1));
    return 0;
}
FAKE_EXPORT aclError aclrtDestroyContext(aclrtContext) { return 0; }
FAKE_EXPORT aclError aclrtCreateStream(aclrtStream *s) {
    if (s == nullptr) return 100000;
    *s = new Stream(static_cast<uint32_t>(t_device < 0 ? 0 : t_device), g_next_stream.fetch_add(1));
    return 0;
}
FAKE_EXPORT aclError aclrtDestroyStream(aclrtStream s) {
    delete static_cast<Stream *>(s);
    return 0;
}
FAKE_EXPORT aclError aclrtSynchronizeStream(aclrtStream s) {
    resolve(s)->sync();
    return 0;
}
FAKE_EXPORT aclError aclrtStreamGetId(aclrtStream s, int32_t *id) {
    *id = static_cast<int32_t>(resolve(s)->id);
    return 0;
}
FAKE_EXPORT aclError aclrtLaunchKernel(aclrtFuncHandle, uint32_t, const void *, size_t, aclrtStream s) {
    return launch(s, "fake_kernel");
}
FAKE_EXPORT aclError aclrtLaunchKernelV2(aclrtFuncHandle, uint32_t, const void *, size_t, aclrtLaunchKernelCfg *,
                                         aclrtStream s) {
    return launch(s, "fake_kernel_v2");
}
FAKE_EXPORT aclError aclrtLaunchKernelWithConfig(aclrtFuncHandle, uint32_t, aclrtStream s, aclrtLaunchKernelCfg *,
                                                 aclrtArgsHandle, void *) {
    return launch(s, "fake_kernel_cfg");
}
FAKE_EXPORT aclError aclrtLaunchKernelWithHostArgs(aclrtFuncHandle, uint32_t, aclrtStream s, aclrtLaunchKernelCfg *,
                                                   void *, size_t, aclrtPlaceHolderInfo *, size_t) {
    return launch(s, "Axpy_fake_high_performance");
}

FAKE_EXPORT aclError aclrtMalloc(void **p, size_t size, aclrtMemMallocPolicy) { return do_malloc(p, size); }
FAKE_EXPORT aclError aclrtFree(void *p) { return do_free(p); }
FAKE_EXPORT aclError aclrtMallocHost(void **p, size_t size) { return do_malloc(p, size); }
FAKE_EXPORT aclError aclrtFreeHost(void *p) { return do_free(p); }
FAKE_EXPORT aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind) {
    return do_memcpy(dst, destMax, src, count, kind);
}
FAKE_EXPORT aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind,
                                      aclrtStream s) {
    resolve(s);
    return do_memcpy(dst, destMax, src, count, kind);
}
FAKE_EXPORT aclError aclrtMemset(void *p, size_t maxCount, int32_t value, size_t count) {
    return do_memset(p, maxCount, value, count);
}
FAKE_EXPORT aclError aclrtMemsetAsync(void *p, size_t maxCount, int32_t value, size_t count, aclrtStream) {
    return do_memset(p, maxCount, value, count);
}

// HCCL: single-process communicators whose collectives copy their input (enough for the
// interposer, which only brackets them).
FAKE_EXPORT HcclResult fakeCommCreate(uint32_t ranks, const char *name, HcclComm *comm) {
    auto *c = new Comm{ranks, {}};
    std::strncpy(c->name, name, sizeof(c->name) - 1);
    *comm = c;
    return 0;
}
FAKE_EXPORT HcclResult HcclCommDestroy(HcclComm comm) {
    delete static_cast<Comm *>(comm);
    return 0;
}
FAKE_EXPORT HcclResult HcclGetRankSize(HcclComm comm, uint32_t *size) {
    *size = static_cast<Comm *>(comm)->ranks;
    return 0;
}
FAKE_EXPORT HcclResult HcclGetCommName(HcclComm comm, char *name) {
    std::memcpy(name, static_cast<Comm *>(comm)->name, 128);
    return 0;
}
FAKE_EXPORT HcclResult HcclAllReduce(void *send, void *recv, uint64_t count, HcclDataType type, HcclReduceOp,
                                     HcclComm comm, aclrtStream stream) {
    if (send == nullptr || recv == nullptr) return 2;  // HCCL_E_PTR: rejected, nothing enqueued
    const uint64_t begin = now_ns();
    Stream *s = resolve(stream);
    const uint32_t task = track(s->device, s->id, kTypeHccl, "hcom_allReduce_");
    if (task != 0 && (gate().compact.load() & pa::kSwitchHcclTrace) != 0) {
        pa::MsprofCompactInfo c;
        c.level = pa::kLevelNode;
        c.type = pa::kTypeHcclOpInfo;
        c.dataLen = sizeof(pa::MsprofHcclOPInfo);
        c.timeStamp = MsprofSysCycleTime();
        c.data.hcclopInfo.dataType = static_cast<uint8_t>(type);
        c.data.hcclopInfo.algType = hash("RING");
        c.data.hcclopInfo.count = count;
        c.data.hcclopInfo.groupName = hash(static_cast<Comm *>(comm)->name);
        MsprofReportCompactInfo(1, &c, sizeof c);
    }
    size_t bytes = count * (type == 4 ? 4 : 1);
    s->push([s, send, recv, bytes, task] {
        uint64_t start = now_ns();
        std::memmove(recv, send, bytes);
        uint64_t end = std::max(now_ns(), start + 1000000 / vnpu::hal::kTicksPerMs);
        executed(s->device, s->id, task, start, end);
    });
    // HCCL reports the node launch around its op at the end of the call (CANN's order).
    if (task != 0) report_node("hcom_allReduce_", begin, now_ns());
    return 0;
}
FAKE_EXPORT HcclResult HcclBarrier(HcclComm, aclrtStream) { return 0; }
