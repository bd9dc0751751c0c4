#include "device/vnpu_attach.h"

#include <atomic>
#include <dlfcn.h>
#include <mutex>

#include "common/diagnostics.h"
#include "core/activity_engine.h"
#include "device/callbacks.h"
#include "mstx/marker_recorder.h"

namespace mspti::device {
namespace {

using RegisterFn = int (*)(const vnpuProfiler *);
using TraceFn = int (*)(void *, uint64_t, uint32_t);

// Which enqueue-time callbacks the registered table carries.
enum Want : unsigned { kWantApi = 1, kWantKernel = 2, kWantCollective = 4 };

std::mutex g_mutex;  // attach/re-register only; never held while the runtime calls us
std::atomic<bool> g_attached{false};
std::atomic<TraceFn> g_trace{nullptr};
RegisterFn g_register = nullptr;
unsigned g_registered = ~0u;  // what the registered table carries; ~0u = nothing registered yet

void *lookup(const char *name) {
    // RTLD_DEFAULT: the runtime is a global dependency of the program (or dlopen'ed RTLD_GLOBAL);
    // RTLD_NEXT: libmspti was preloaded ahead of it.
    void *p = dlsym(RTLD_DEFAULT, name);
    return p != nullptr ? p : dlsym(RTLD_NEXT, name);
}

unsigned wanted() {
    ActivityEngine &e = ActivityEngine::instance();
    unsigned want = 0;
    if (e.enabled(MSPTI_ACTIVITY_KIND_API) || e.enabled(MSPTI_ACTIVITY_KIND_ACL_API) ||
        e.enabled(MSPTI_ACTIVITY_KIND_NODE_API) || e.enabled(MSPTI_ACTIVITY_KIND_RUNTIME_API))
        want |= kWantApi;
    if (e.enabled(MSPTI_ACTIVITY_KIND_KERNEL)) want |= kWantKernel;
    if (e.enabled(MSPTI_ACTIVITY_KIND_COMMUNICATION)) want |= kWantCollective;
    return want;
}

int trace_through_runtime(void *stream, uint64_t markId, uint32_t flag) {
    TraceFn fn = g_trace.load(std::memory_order_acquire);
    return fn != nullptr ? fn(stream, markId, flag) : -1;
}

// Caller holds g_mutex.
bool register_locked() {
    if (g_register == nullptr) {
        auto reg = reinterpret_cast<RegisterFn>(lookup("vnpuProfilerRegister"));
        auto trace = reinterpret_cast<TraceFn>(lookup("vnpuStreamTrace"));
        if (reg == nullptr) return false;
        g_register = reg;
        g_trace.store(trace, std::memory_order_release);
        // mstx markers on a stream now also give their device half.
        if (trace != nullptr) mstx::set_stream_trace(&trace_through_runtime);
    }
    unsigned want = wanted();
    if (want == g_registered) return true;
    vnpuProfiler table{};
    table.structSize = sizeof(vnpuProfiler);
    table.userdata = nullptr;  // the same for every table, so tagged work survives re-registration
    table.onApi = (want & kWantApi) != 0 ? &on_api : nullptr;
    table.onKernelEnqueue = (want & kWantKernel) != 0 ? &on_kernel_enqueue : nullptr;
    table.onKernelExecuted = &on_kernel_executed;
    table.onCollectiveEnqueue = (want & kWantCollective) != 0 ? &on_collective_enqueue : nullptr;
    table.onCollectiveExecuted = &on_collective_executed;
    table.onStreamTrace = &on_stream_trace;
    if (g_register(&table) != 0) {
        fail(MSPTI_ERROR_INNER, "device: vnpuProfilerRegister rejected our table (runtime too old?)");
        return false;
    }
    g_registered = want;
    g_attached.store(true, std::memory_order_release);
    return true;
}

}  // namespace

bool attach() {
    std::lock_guard<std::mutex> lock(g_mutex);
    return register_locked();
}

void attach_lazily() {
    if (!g_attached.load(std::memory_order_relaxed)) attach();
}

int stream_trace(void *stream, uint64_t markId, uint32_t flag) { return trace_through_runtime(stream, markId, flag); }

void fork_prepare() { g_mutex.lock(); }

void fork_release() { g_mutex.unlock(); }

}  // namespace mspti::device
