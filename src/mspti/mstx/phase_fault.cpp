#include "mstx/phase_fault.h"

#include <atomic>
#include <cstdlib>
#include <dlfcn.h>

namespace mspti::mstx {
namespace {

using Hook = void (*)(const char *);

bool phase_set() {
    const char *v = std::getenv("VNPU_FAULT_PHASE");
    return v != nullptr && *v != '\0';
}

// Looked up at the first range start: the runtime may be loaded after libmspti (preloaded).
std::atomic<Hook> g_hook{nullptr};

}  // namespace

const bool g_phase_fault = phase_set();

void phase_fault_slow(const char *message) {
    Hook hook = g_hook.load(std::memory_order_acquire);
    if (hook == nullptr) {
        void *p = dlsym(RTLD_DEFAULT, "vnpuFaultRangeStarted");
        if (p == nullptr) p = dlsym(RTLD_NEXT, "vnpuFaultRangeStarted");
        if (p == nullptr) return;  // not the virtual NPU: nothing to slow
        hook = reinterpret_cast<Hook>(p);
        g_hook.store(hook, std::memory_order_release);
    }
    hook(message);
}

}  // namespace mspti::mstx
