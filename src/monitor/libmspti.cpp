// Chooses and loads the libmspti.so of this process (the rule is in libmspti.h and docs/install.md).
#include "monitor/libmspti.h"

#include <dlfcn.h>
#include <link.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "mspti/monitor.h"

namespace mspti::detail {
namespace {

constexpr const char *kProbe = "msptiActivityRegisterCallbacks";  // what every libmspti exports

std::string dl_error() {
    const char *e = dlerror();
    return e != nullptr ? e : "unknown error";
}

int collect_name(dl_phdr_info *info, size_t, void *data) {
    if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0')
        static_cast<std::vector<std::string> *>(data)->emplace_back(info->dlpi_name);
    return 0;
}

// The file defining msPTI's C ABI among the objects loaded in the process (LD_PRELOAD, linked, or
// dlopen'ed by a binding), or "". The names are collected first: no dlopen under dl_iterate_phdr's lock.
std::string loaded_library() {
    void *sym = dlsym(RTLD_DEFAULT, kProbe);
    if (sym == nullptr) {
        std::vector<std::string> names;
        dl_iterate_phdr(collect_name, &names);
        for (const std::string &name : names) {
            void *handle = dlopen(name.c_str(), RTLD_LAZY | RTLD_NOLOAD);
            if (handle == nullptr) continue;
            sym = dlsym(handle, kProbe);
            dlclose(handle);
            if (sym != nullptr) break;
        }
    }
    Dl_info where{};
    if (sym == nullptr || dladdr(sym, &where) == 0 || where.dli_fname == nullptr) return "";
    return where.dli_fname;
}

// The directory of libmspti_monitor.so itself, with a trailing '/', or "".
std::string own_dir() {
    Dl_info self{};
    if (dladdr(reinterpret_cast<void *>(&libmspti), &self) == 0 || self.dli_fname == nullptr) return "";
    std::string path = self.dli_fname;
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

bool is_file(const std::string &path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

template <typename F>
void bind(void *handle, const char *name, F *fn) {
    *fn = reinterpret_cast<F>(dlsym(handle, name));
}

// Opens `path` (in its own scope: see make_global) and checks it is a libmspti.
void *open_checked(const std::string &path, const std::string &what, int extra_flags, std::string *error) {
    void *handle = dlopen(path.c_str(), RTLD_NOW | extra_flags);
    if (handle == nullptr) {
        *error = what + ": cannot be loaded: " + dl_error();
        return nullptr;
    }
    if (dlsym(handle, kProbe) == nullptr) {
        *error = what + " is not a libmspti.so (it does not export " + kProbe + ")";
        dlclose(handle);
        return nullptr;
    }
    return handle;
}

void *choose(std::string *path, std::string *error) {
    // 1. One already in the process: it is the library whose functions the program calls.
    std::string loaded = loaded_library();
    if (!loaded.empty()) {
        *path = loaded;
        return open_checked(loaded, "the libmspti.so loaded in the process (" + loaded + ")", RTLD_NOLOAD, error);
    }
    // 2. MSPTI_LIBRARY: a path to a libmspti.so.
    const char *env = std::getenv("MSPTI_LIBRARY");
    if (env != nullptr && env[0] != '\0') {
        *path = env;
        const std::string what = std::string("MSPTI_LIBRARY=") + env;
        if (!is_file(env)) {
            *error = what + ": no such file";
            return nullptr;
        }
        return open_checked(env, what, 0, error);
    }
    // 3. The bundled one, beside libmspti_monitor.so, else on the dynamic linker's path.
    const std::string dir = own_dir();
    std::vector<std::string> candidates;
    for (const char *name : {"libmspti.so.0", "libmspti.so"}) {
        if (!dir.empty() && is_file(dir + name)) candidates.push_back(dir + name);
    }
    candidates.emplace_back("libmspti.so.0");
    candidates.emplace_back("libmspti.so");
    std::string tried;
    for (const std::string &candidate : candidates) {
        std::string why;
        void *handle = open_checked(candidate, candidate, 0, &why);
        if (handle != nullptr) {
            *path = candidate;
            return handle;
        }
        tried += (tried.empty() ? "" : "; ") + why;
    }
    *error = "no libmspti.so found (tried " + tried + "); set MSPTI_LIBRARY to its path";
    return nullptr;
}

// Makes the library global, as linking or LD_PRELOAD would have (so that the mstx header and the
// runtime's lookups find it), unless its interposers would then stand in front of a runtime that is not
// global (a binding that loaded the runtime locally, as Java does): that would interpose calls no
// LD_PRELOAD asked for. Then only libprofapi is made global: its InitInjectionMstx finds the tool.
void make_global(void *handle, const std::string &path) {
    void *global_scope = dlopen(nullptr, RTLD_NOW);
    void *runtime = global_scope != nullptr ? dlsym(global_scope, "aclrtSetDevice") : nullptr;
    void *own = dlsym(handle, "aclrtSetDevice");
    Dl_info a{}, b{};
    const bool runtime_first = runtime != nullptr && own != nullptr && dladdr(runtime, &a) != 0 &&
                               dladdr(own, &b) != 0 && a.dli_fbase != b.dli_fbase;
    if (own == nullptr || runtime_first) {
        if (void *promoted = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL)) dlclose(promoted);
        if (dlsym(handle, "InitInjectionMstx") != nullptr) return;
    }
    // msPTI's library takes markers through libprofapi's InitInjectionMstx (it exports none), which the
    // header-only mstx API finds only in the global scope; ours is found by it too.
    if (void *profapi = dlopen("libprofapi.so", RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL)) {
        dlclose(profapi);
        return;
    }
    const std::string beside = own_dir() + "libprofapi.so";
    if (is_file(beside)) dlopen(beside.c_str(), RTLD_NOW | RTLD_GLOBAL);  // kept for the process
}

Libmspti resolve() {
    Libmspti lib;
    void *handle = choose(&lib.path, &lib.error);
    if (handle == nullptr) {
        std::fprintf(stderr, "mspti: %s\n", lib.error.c_str());
        return lib;
    }
    bind(handle, "msptiActivityRegisterCallbacks", &lib.register_callbacks);
    bind(handle, "msptiSubscribe", &lib.subscribe);
    bind(handle, "msptiUnsubscribe", &lib.unsubscribe);
    bind(handle, "msptiActivityEnable", &lib.enable);
    bind(handle, "msptiActivityDisable", &lib.disable);
    bind(handle, "msptiActivityFlushAll", &lib.flush_all);
    bind(handle, "msptiActivityFlushPeriod", &lib.flush_period);
    bind(handle, "msptiActivityGetNextRecord", &lib.get_next_record);
    bind(handle, "msptiActivityEnableMarkerDomain", &lib.enable_marker_domain);
    bind(handle, "msptiActivityDisableMarkerDomain", &lib.disable_marker_domain);
    bind(handle, "msptiExtActivityGetNumDroppedRecords", &lib.ext_dropped);
    bind(handle, "msptiExtActivityReportDiscarded", &lib.ext_report_discarded);
    bind(handle, "msptiExtResultString", &lib.ext_result_string);
    bind(handle, "msptiExtGetVersionString", &lib.ext_version);
    bind(handle, "msptiExtDeviceGetStats", &lib.ext_device_stats);
    const bool core = lib.register_callbacks && lib.subscribe && lib.unsubscribe && lib.enable && lib.disable &&
                      lib.flush_all && lib.flush_period && lib.get_next_record && lib.enable_marker_domain &&
                      lib.disable_marker_domain;
    if (!core) {
        lib.error = lib.path + " lacks functions of msPTI's C ABI (msptiSubscribe, msptiActivity*)";
        std::fprintf(stderr, "mspti: %s\n", lib.error.c_str());
        return lib;
    }
    lib.loaded = true;
    make_global(handle, lib.path);
    if (lib.ext_dropped == nullptr || lib.ext_report_discarded == nullptr)
        std::fprintf(stderr,
                     "mspti: %s has no msptiExtActivityGetNumDroppedRecords/msptiExtActivityReportDiscarded: monitors' "
                     "dropped counts include only records the monitors themselves dropped\n",
                     lib.path.c_str());
    return lib;
}

// Chosen when libmspti_monitor.so is loaded, as linking libmspti would have loaded it: before main,
// before the program's first runtime call.
__attribute__((constructor)) void choose_at_load() { libmspti(); }

}  // namespace

const Libmspti &libmspti() {
    static const Libmspti *lib = new Libmspti(resolve());  // never freed: threads may use it during exit
    return *lib;
}

const char *result_text(int code) {
    const Libmspti &lib = libmspti();
    if (lib.ext_result_string != nullptr) return lib.ext_result_string(static_cast<msptiResult>(code));
    return mspti::result_name(code);  // msPTI's library names no results
}

}  // namespace mspti::detail

namespace mspti {

std::string libmspti_version() {
    const detail::Libmspti &lib = detail::libmspti();
    return lib.ext_version != nullptr ? lib.ext_version() : "";
}

DeviceStats device_stats() {
    DeviceStats out;
    const detail::Libmspti &lib = detail::libmspti();
    msptiExtDeviceStats s{};
    if (lib.ext_device_stats == nullptr || lib.ext_device_stats(&s) != MSPTI_SUCCESS) return out;
    out.available = true;
    out.bytes = s.bytes;
    out.records = s.records;
    out.skipped = s.skipped;
    out.malformed = s.malformed;
    out.unmatched = s.unmatched;
    out.read_errors = s.readErrors;
    out.short_flushes = s.shortFlushes;
    return out;
}

}  // namespace mspti
