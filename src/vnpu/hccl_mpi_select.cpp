// Chooses the HCCL transport and loads the MPI one. The choice is made once: VNPU_HCCL_TRANSPORT=mpi|shm
// decides; unset, running under mpirun (OMPI_COMM_WORLD_SIZE) means MPI. It is logged once at info level
// through dlog (libascendalog, module HCCL) when that library is there.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "hccl_mpi.h"
#include "hccl_reduce.h"

namespace vnpu::hccl {
namespace {

constexpr int kDlogModuleHccl = 3;
constexpr int kDlogInfo = 1;

// A library next to libvnpu (as in a CANN lib64), else by name.
std::string sibling_path(const char *name) {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void *>(&sibling_path), &info) != 0 && info.dli_fname != nullptr) {
        std::string self = info.dli_fname;
        const size_t slash = self.rfind('/');
        if (slash != std::string::npos) {
            return self.substr(0, slash + 1) + name;
        }
    }
    return name;
}

void log_info(const char *message) {
    void *lib = dlopen(sibling_path("libascendalog.so").c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
        lib = dlopen("libascendalog.so", RTLD_NOW | RTLD_LOCAL);
    }
    if (lib == nullptr) {
        return;
    }
    auto check = reinterpret_cast<int (*)(int, int)>(dlsym(lib, "CheckLogLevelForC"));
    auto log = reinterpret_cast<void (*)(int, int, const char *, ...)>(dlsym(lib, "DlogInnerForC"));
    if (check != nullptr && log != nullptr && check(kDlogModuleHccl, kDlogInfo) == 1) {
        log(kDlogModuleHccl, kDlogInfo, "[vnpu hccl] %s\n", message);
    }
}

}  // namespace

bool mpi_selected() {
    static const bool selected = [] {
        const char *choice = std::getenv("VNPU_HCCL_TRANSPORT");
        bool mpi = false;
        const char *why = "";
        if (choice != nullptr && std::strcmp(choice, "mpi") == 0) {
            mpi = true, why = "VNPU_HCCL_TRANSPORT=mpi";
        } else if (choice != nullptr && std::strcmp(choice, "shm") == 0) {
            why = "VNPU_HCCL_TRANSPORT=shm";
        } else if (std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr) {
            mpi = true, why = "running under mpirun";
        } else {
            why = "the default on one host";
        }
        char line[160];
        std::snprintf(line, sizeof line, "communicators made from root info use %s (%s)",
                      mpi ? "Open MPI" : "shared memory", why);
        log_info(line);
        return mpi;
    }();
    return selected;
}

MpiTransport *mpi_transport() {
    static MpiTransport *transport = [] {
        const std::string path = sibling_path("libvnpu_hccl_mpi.so");
        // RTLD_GLOBAL: Open MPI's own components resolve libmpi's symbols when it loads them.
        void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
        if (lib == nullptr) {
            std::fprintf(stderr, "vnpu hccl: the MPI transport cannot be loaded (%s); is Open MPI installed?\n",
                         dlerror());
            return static_cast<MpiTransport *>(nullptr);
        }
        auto create = reinterpret_cast<void *(*)(ReduceFn, char *, unsigned long)>(dlsym(lib, "vnpuHcclMpiCreate"));
        char error[256] = "no entry point";
        void *made = create != nullptr ? create(&reduce_into, error, sizeof error) : nullptr;
        if (made == nullptr) {
            std::fprintf(stderr, "vnpu hccl: the MPI transport cannot start: %s\n", error);
        }
        return static_cast<MpiTransport *>(made);
    }();
    return transport;
}

}  // namespace vnpu::hccl
