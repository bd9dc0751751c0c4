// A tiny stand-in for the virtual NPU, used by the interposer's unit tests so that they depend
// only on the runtime's C interface and vnpu_profiler.h: devices are ids, device memory is host
// memory, each stream runs its tasks on its own worker thread (as the vnpu does) and reports to
// the registered vnpuProfiler. Some entry points (aclrtMemcpy2d) are deliberately missing, to
// test the interposer's "no real symbol" path.
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

#include "interpose/acl_abi.h"
#include "vnpu/vnpu_profiler.h"

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

std::atomic<const vnpuProfiler *> g_profiler{nullptr};
thread_local int32_t t_device = -1;

uint64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
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

const vnpuProfiler *profiler() { return g_profiler.load(std::memory_order_acquire); }

aclError launch(void *stream, const char *name) {
    Stream *s = resolve(stream);
    uint64_t tag = 0;
    const vnpuKernelInfo info{s->device, s->id, name, "KERNEL_AIVEC"};
    const vnpuProfiler *p = profiler();
    if (p != nullptr && p->onKernelEnqueue != nullptr) tag = p->onKernelEnqueue(p->userdata, &info);
    s->push([s, tag, info] {
        // Kernels on a stream never overlap and always take time.
        uint64_t start = std::max(now_ns(), s->last_end);
        uint64_t end = std::max(now_ns(), start + 1);
        s->last_end = end;
        const vnpuProfiler *q = profiler();
        if (tag != 0 && q != nullptr && q->onKernelExecuted != nullptr)
            q->onKernelExecuted(q->userdata, tag, &info, start, end);
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

// vnpu profiler interface ------------------------------------------------------------------
FAKE_EXPORT int vnpuProfilerRegister(const vnpuProfiler *p) {
    if (p != nullptr && p->structSize < sizeof(vnpuProfiler)) return 1;
    const vnpuProfiler *copy = p != nullptr ? new vnpuProfiler(*p) : nullptr;
    // Replaced tables stay alive (a reader may still hold one), kept reachable for leak checkers.
    static std::mutex retired_mutex;
    static auto *retired = new std::vector<const vnpuProfiler *>;
    std::lock_guard<std::mutex> lock(retired_mutex);
    if (const vnpuProfiler *old = g_profiler.exchange(copy, std::memory_order_acq_rel)) retired->push_back(old);
    return 0;
}
FAKE_EXPORT int vnpuStreamTrace(void *stream, uint64_t markId, uint32_t flag) {
    Stream *s = resolve(stream);
    s->push([s, markId, flag] {
        const vnpuProfiler *p = profiler();
        if (p != nullptr && p->onStreamTrace != nullptr)
            p->onStreamTrace(p->userdata, markId, flag, s->device, s->id, now_ns());
    });
    return 0;
}
FAKE_EXPORT int vnpuStreamGetIds(void *stream, uint32_t *deviceId, uint32_t *streamId) {
    Stream *s = resolve(stream);
    *deviceId = s->device;
    *streamId = s->id;
    return 0;
}
FAKE_EXPORT uint64_t vnpuNowNs(void) { return now_ns(); }

// A node-level operator (like aclnnAdd): its host span is reported as a NODE API, and it launches
// through the exported (interposable) aclrtLaunchKernelWithHostArgs.
FAKE_EXPORT aclError fakeNodeOp(void *stream) {
    uint64_t begin = now_ns();
    char args[8] = {};
    aclError r = aclrtLaunchKernelWithHostArgs(nullptr, 1, stream, nullptr, args, sizeof(args), nullptr, 0);
    const vnpuProfiler *p = profiler();
    if (p != nullptr && p->onApi != nullptr)
        p->onApi(p->userdata, VNPU_API_LEVEL_NODE, "fakeAdd_AxpyAiCore_Axpy", begin, now_ns());
    return r;
}

// ACL runtime ------------------------------------------------------------------------------
FAKE_EXPORT aclError aclInit(const char *) { return 0; }
FAKE_EXPORT aclError aclrtSetDevice(int32_t d) {
    if (d < 0 || d >= 8) return 107001;
    t_device = d;
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
    Stream *s = resolve(stream);
    const vnpuProfiler *p = profiler();
    uint64_t tag = 0;
    if (p != nullptr && p->onCollectiveEnqueue != nullptr) {
        vnpuCollectiveInfo info{s->device,
                                s->id,
                                "hcom_allReduce_",
                                static_cast<Comm *>(comm)->name,
                                "RING",
                                static_cast<uint32_t>(type),
                                count,
                                static_cast<Comm *>(comm)->ranks};
        tag = p->onCollectiveEnqueue(p->userdata, &info);
    }
    size_t bytes = count * (type == 4 ? 4 : 1);
    s->push([send, recv, bytes, tag] {
        uint64_t start = now_ns();
        std::memmove(recv, send, bytes);
        uint64_t end = now_ns() + 1;
        const vnpuProfiler *q = profiler();
        if (tag != 0 && q != nullptr && q->onCollectiveExecuted != nullptr)
            q->onCollectiveExecuted(q->userdata, tag, start, end);
    });
    return 0;
}
FAKE_EXPORT HcclResult HcclBarrier(HcclComm, aclrtStream) { return 0; }
