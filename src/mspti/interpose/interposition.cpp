#include "interpose/interposition.h"

#include <dlfcn.h>
#include <link.h>

#include "common/diagnostics.h"
#include "device/cann_collector.h"
#include "interpose/acl_abi.h"
#include "interpose/real_functions.h"

namespace mspti::interpose {
namespace {
void anchor() {}
}  // namespace

namespace {

struct Search {
    const char *name;
    void *ours;  // libmspti's load base: our own definitions are never "the next one"
    void *found;
};

int search_object(struct dl_phdr_info *info, size_t, void *data) {
    auto *search = static_cast<Search *>(data);
    const char *path = info->dlpi_name;
    if (path == nullptr || path[0] == '\0') return 0;  // the program itself: covered by RTLD_NEXT
    void *handle = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
    if (handle == nullptr) return 0;
    void *symbol = dlsym(handle, search->name);
    dlclose(handle);
    Dl_info owner{};
    // dlsym on a handle also searches that object's dependencies, libmspti among them.
    if (symbol != nullptr && dladdr(symbol, &owner) != 0 && owner.dli_fbase != search->ours) {
        search->found = symbol;
        return 1;
    }
    return 0;
}

}  // namespace

void *next_symbol(const char *name) {
    if (void *symbol = dlsym(RTLD_NEXT, name)) return symbol;
    // RTLD_NEXT misses a runtime loaded after libmspti with RTLD_LOCAL (as when a Python package
    // opens libmspti first): look through every loaded object instead.
    Dl_info self{};
    if (dladdr(reinterpret_cast<void *>(&anchor), &self) == 0) return nullptr;
    Search search{name, self.dli_fbase, nullptr};
    dl_iterate_phdr(&search_object, &search);
    return search.found;
}

bool interposing() {
    // Resolution, not the LD_PRELOAD text. The probe, aclInit, is defined below, so every link of
    // this check includes it. The main program's handle searches the global scope only: the
    // program, what it started with (LD_PRELOAD first) and RTLD_GLOBAL libraries. RTLD_DEFAULT
    // would also search our own local scope, and find us even when we were opened RTLD_LOCAL.
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
    fail(MSPTI_ERROR_INNER, "interposer: the real %s was not found behind libmspti.so (is the runtime loaded?)", name);
}

}  // namespace mspti::interpose

// The probe entry point. It has no callback id; interposing it also finds the runtime early
// (device attach) in programs that call it first.
MSPTI_INTERPOSE aclError aclInit(const char *configPath) {
    auto fn = mspti::interpose::real::aclInit.get();
    if (fn == nullptr) return mspti::interpose::kAclApiNotSupport;
    aclError result = fn(configPath);
    mspti::device::attach_lazily();
    return result;
}
