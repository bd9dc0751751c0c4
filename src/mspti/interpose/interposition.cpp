#include "interpose/interposition.h"

#include <dlfcn.h>

namespace mspti::interpose {
namespace {
void anchor() {}
}  // namespace

void *next_symbol(const char *name) { return dlsym(RTLD_NEXT, name); }

bool interposing() {
    // The handle of the main program searches the global scope only: the program, what it was
    // started with (LD_PRELOAD first) and RTLD_GLOBAL libraries. RTLD_DEFAULT would also search
    // our own local scope and find our definition even when libmspti was opened RTLD_LOCAL.
    static void *const global_scope = dlopen(nullptr, RTLD_NOW);
    void *global = global_scope != nullptr ? dlsym(global_scope, "aclInit") : nullptr;
    if (global == nullptr) return false;
    Dl_info resolved{}, ours{};
    if (dladdr(global, &resolved) == 0 || dladdr(reinterpret_cast<void *>(&anchor), &ours) == 0) return false;
    return resolved.dli_fbase == ours.dli_fbase;
}

}  // namespace mspti::interpose

// The probe entry point: forwards to the real runtime's aclInit.
extern "C" __attribute__((visibility("default"))) int aclInit(const char *configPath) {
    using AclInit = int (*)(const char *);
    static auto real = reinterpret_cast<AclInit>(mspti::interpose::next_symbol("aclInit"));
    if (real == nullptr) return 100000;  // ACL_ERROR_INVALID_PARAM: no runtime loaded behind us
    return real(configPath);
}
