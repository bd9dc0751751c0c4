// The mstx side of libprofapi.so: a profiler registers its InitInjectionMstx with ProfRegisterMstxFunc
// (msPTI's libmspti does, and exports none of its own). The mstx header finds the InitInjectionMstx
// exported here and is handed on to that registered function; with none registered, to another
// InitInjectionMstx loaded in the process (a profiler that exports its own), else it fails as when no
// tool is loaded. While VNPU_FAULT_PHASE is set (the virtual NPU's named-phase fault, docs/faults.md),
// the range starts the tool filled in are wrapped: the tool's function, then libvnpu's
// vnpuFaultRangeStarted. Only markers that come through here are slowed, as CANN sees only those.
#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define PROFAPI_EXPORT __attribute__((visibility("default")))

namespace {

using GetTableFn = int (*)(int module, void *outTable, unsigned int *outSize);
using InitFn = int (*)(GetTableFn);

constexpr int kMstxSuccess = 0;
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

// ---- VNPU_FAULT_PHASE: range starts wrapped after the tool filled the table ----

using FuncPointer = void (*)();
using RangeStartFn = uint64_t (*)(const char *message, void *stream);
using DomainRangeStartFn = uint64_t (*)(void *domain, const char *message, void *stream);
using FaultFn = void (*)(const char *message);

constexpr int kModuleCore = 1, kSlotRangeStart = 2;  // MSTX_API_MODULE_CORE, MSTX_API_CORE_RANGE_START_A
constexpr int kModuleDomain = 2, kSlotDomainRangeStart = 4;  // ..._CORE_DOMAIN, MSTX_API_CORE2_DOMAIN_RANGE_START_A

// A wrapper is a plain function (the table holds no context), so each distinct tool function gets
// a slot of its own; one process rarely has more than one tool.
constexpr int kToolSlots = 4;
std::atomic<RangeStartFn> g_tool_start[kToolSlots]{};
std::atomic<DomainRangeStartFn> g_tool_domain_start[kToolSlots]{};
std::atomic<FaultFn> g_fault{nullptr};

// Looked up at a range start, not at load: the runtime may be loaded after the first marker.
void range_started(const char *message) {
    FaultFn f = g_fault.load(std::memory_order_acquire);
    if (f == nullptr) {
        f = reinterpret_cast<FaultFn>(dlsym(RTLD_DEFAULT, "vnpuFaultRangeStarted"));
        if (f == nullptr) return;  // no virtual NPU in this process: nothing to slow
        g_fault.store(f, std::memory_order_release);
    }
    f(message);
}

// The tool first, so the slowed time lies inside the range it has just started.
template <int N>
uint64_t slowed_start(const char *message, void *stream) {
    const uint64_t id = g_tool_start[N].load(std::memory_order_acquire)(message, stream);
    range_started(message);
    return id;
}

template <int N>
uint64_t slowed_domain_start(void *domain, const char *message, void *stream) {
    const uint64_t id = g_tool_domain_start[N].load(std::memory_order_acquire)(domain, message, stream);
    range_started(message);
    return id;
}

constexpr RangeStartFn kStartWrappers[kToolSlots] = {slowed_start<0>, slowed_start<1>, slowed_start<2>,
                                                     slowed_start<3>};
constexpr DomainRangeStartFn kDomainStartWrappers[kToolSlots] = {slowed_domain_start<0>, slowed_domain_start<1>,
                                                                 slowed_domain_start<2>, slowed_domain_start<3>};

// The wrapper of `tool`: the slot already holding it, else a free one claimed. Lock-free, so a child
// forked while another thread initialised can initialise again. nullptr when every slot holds another.
template <typename Fn>
Fn wrapper_for(std::atomic<Fn> (&slots)[kToolSlots], const Fn (&wrappers)[kToolSlots], Fn tool) {
    for (int i = 0; i < kToolSlots; ++i) {
        if (wrappers[i] == tool) return tool;  // this table was wrapped already
    }
    for (int i = 0; i < kToolSlots; ++i) {
        Fn held = nullptr;
        if (slots[i].compare_exchange_strong(held, tool, std::memory_order_acq_rel) || held == tool) {
            return wrappers[i];
        }
    }
    return nullptr;
}

template <typename Fn>
void wrap_slot(GetTableFn get_table, int module, unsigned int slot, std::atomic<Fn> (&slots)[kToolSlots],
               const Fn (&wrappers)[kToolSlots]) {
    FuncPointer **table = nullptr;
    unsigned int size = 0;
    // Asked again after the tool filled it: the header hands out the same entries each time.
    if (get_table(module, static_cast<void *>(&table), &size) != kMstxSuccess || table == nullptr || slot >= size ||
        table[slot] == nullptr || *table[slot] == nullptr) {
        return;
    }
    Fn wrapper = wrapper_for(slots, wrappers, reinterpret_cast<Fn>(*table[slot]));
    if (wrapper == nullptr) {
        std::fprintf(stderr,
                     "libprofapi: VNPU_FAULT_PHASE: more than %d mstx tools' range starts; this one's "
                     "ranges are not slowed\n",
                     kToolSlots);
        return;
    }
    *table[slot] = reinterpret_cast<FuncPointer>(wrapper);
}

bool phase_fault_set() {
    const char *phase = std::getenv("VNPU_FAULT_PHASE");
    return phase != nullptr && *phase != '\0';
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
        // This library's own function, not &InitInjectionMstx: an exported name may be bound to another
        // object's definition (libmspti's, when libmspti comes first in the lookup order).
        dladdr(reinterpret_cast<void *>(&collect_name), &self);
        init = find_other(self.dli_fbase);
    }
    const int result = init != nullptr ? init(getTable) : kMstxFail;
    if (result == kMstxSuccess && phase_fault_set()) {
        wrap_slot(getTable, kModuleCore, kSlotRangeStart, g_tool_start, kStartWrappers);
        wrap_slot(getTable, kModuleDomain, kSlotDomainRangeStart, g_tool_domain_start, kDomainStartWrappers);
    }
    return result;
}

}  // extern "C"
