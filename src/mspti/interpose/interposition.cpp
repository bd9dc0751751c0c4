#include "interpose/interposition.h"

#include <dlfcn.h>

#include "common/error.h"
#include "device/vnpu_attach.h"
#include "interpose/acl_abi.h"
#include "interpose/real_symbol.h"

namespace mspti::interpose {
namespace {
void anchor() {}
}  // namespace

void *next_symbol(const char *name) { return dlsym(RTLD_NEXT, name); }

bool interposing() {
    // The handle of the main program searches the global scope only: the program, what it was
    // started with (LD_PRELOAD first) and RTLD_GLOBAL libraries. RTLD_DEFAULT would also search
    // our own local scope and find our definition even when libmspti was opened RTLD_LOCAL.
    // The probe, aclInit, is defined below, so every link of this check includes it.
    static void *const global_scope = dlopen(nullptr, RTLD_NOW);
    void *global = global_scope != nullptr ? dlsym(global_scope, "aclInit") : nullptr;
    if (global == nullptr) return false;
    Dl_info resolved{}, ours{};
    if (dladdr(global, &resolved) == 0 || dladdr(reinterpret_cast<void *>(&anchor), &ours) == 0) return false;
    return resolved.dli_fbase == ours.dli_fbase;
}

void report_missing(const char *name) {
    // Callers keep retrying while the symbol is missing; say it once per call site's name.
    static const char *last = nullptr;
    if (__atomic_exchange_n(&last, name, __ATOMIC_RELAXED) == name) return;
    fail(MSPTI_ERROR_INNER, "interposer: the real %s was not found behind libmspti.so (is the runtime loaded?)",
         name);
}

}  // namespace mspti::interpose

namespace {
mspti::interpose::RealSymbol<decltype(&aclInit)> real_aclInit{"aclInit"};
}  // namespace

// The probe entry point. It has no callback id; interposing it also finds the runtime early
// (device attach) in programs that call it first.
MSPTI_INTERPOSE aclError aclInit(const char *configPath) {
    auto fn = real_aclInit.get();
    if (fn == nullptr) return mspti::interpose::kAclApiNotSupport;
    aclError result = fn(configPath);
    mspti::device::attach_lazily();
    return result;
}
