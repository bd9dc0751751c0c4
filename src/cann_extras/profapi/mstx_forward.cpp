// The mstx side of libprofapi.so: a profiler registers its InitInjectionMstx with ProfRegisterMstxFunc
// (msPTI's libmspti does, and exports none of its own). The mstx header finds the InitInjectionMstx
// exported here and is handed on to that registered function; with none registered, to another
// InitInjectionMstx loaded in the process (a profiler that exports its own), else it fails as when no
// tool is loaded.
#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#define PROFAPI_EXPORT __attribute__((visibility("default")))

namespace {

using GetTableFn = int (*)(int module, void *outTable, unsigned int *outSize);
using InitFn = int (*)(GetTableFn);

constexpr int kMstxFail = 1;
constexpr int kModuleCount = 3;  // MODULE_INVALID, PROF_MODULE_MSPROF, PROF_MODULE_MSPTI

std::atomic<InitFn> g_registered[kModuleCount]{};
std::atomic<int> g_enabled{0};

int collect_name(dl_phdr_info *info, size_t, void *data) {
    if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') {
        static_cast<std::vector<std::string> *>(data)->emplace_back(info->dlpi_name);
    }
    return 0;
}

// InitInjectionMstx defined in another loaded object than this library, or nullptr. The names are
// collected first: dlopen is not called under dl_iterate_phdr's lock.
InitFn find_other(const void *self) {
    std::vector<std::string> names;
    dl_iterate_phdr(collect_name, &names);
    for (const std::string &name : names) {
        void *handle = dlopen(name.c_str(), RTLD_LAZY | RTLD_NOLOAD);
        if (handle == nullptr) {
            continue;
        }
        void *sym = dlsym(handle, "InitInjectionMstx");
        Dl_info where{};
        const bool other = sym != nullptr && dladdr(sym, &where) != 0 && where.dli_fbase != self;
        dlclose(handle);
        if (other) {
            return reinterpret_cast<InitFn>(sym);
        }
    }
    return nullptr;
}

}  // namespace

extern "C" {

PROFAPI_EXPORT void ProfRegisterMstxFunc(InitFn init, int module) {
    if (module > 0 && module < kModuleCount) {
        g_registered[module].store(init, std::memory_order_release);
    }
}

PROFAPI_EXPORT void ProfEnableMstxFunc(int module) {
    if (module > 0 && module < kModuleCount) {
        g_enabled.store(module, std::memory_order_release);
    }
}

PROFAPI_EXPORT int InitInjectionMstx(GetTableFn getTable) {
    // The enabled module's tool first, then any registered one (the mstx header initialises once, maybe
    // before the profiler enables markers; the tool itself decides what an enabled marker records).
    InitFn init = g_registered[g_enabled.load(std::memory_order_acquire)].load(std::memory_order_acquire);
    for (int m = kModuleCount - 1; init == nullptr && m > 0; --m) {
        init = g_registered[m].load(std::memory_order_acquire);
    }
    if (init == nullptr) {
        Dl_info self{};
        dladdr(reinterpret_cast<void *>(&InitInjectionMstx), &self);
        init = find_other(self.dli_fbase);
    }
    return init != nullptr ? init(getTable) : kMstxFail;
}

}  // extern "C"
