#include "interpose/interposition.h"

#include <dlfcn.h>

namespace mspti::interpose {
namespace {
void anchor() {}
}  // namespace

void *next_symbol(const char *name) { return dlsym(RTLD_NEXT, name); }

bool interposing() {
    void *global = dlsym(RTLD_DEFAULT, "aclInit");
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
