#include "device/cann_libraries.h"

#include <dlfcn.h>
#include <limits.h>
#include <sys/stat.h>

#include <cstdlib>
#include <string>

namespace mspti::device {

namespace {

// dlopen()s `dir`/`name` by its real path if it is a file there.
void *open_in(const std::string &dir, const char *name) {
    std::string path = dir + "/" + name;
    char real[PATH_MAX];
    struct stat st {};
    if (realpath(path.c_str(), real) == nullptr || stat(real, &st) != 0 || !S_ISREG(st.st_mode)) return nullptr;
    return dlopen(real, RTLD_LAZY | RTLD_NODELETE);
}

// The directory libmspti.so was loaded from.
std::string own_directory() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void *>(&open_cann_library), &info) == 0 || info.dli_fname == nullptr) return "";
    std::string path = info.dli_fname;
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? "" : path.substr(0, slash);
}

}  // namespace

void *open_cann_library(const char *name) {
    if (const char *home = std::getenv("ASCEND_HOME_PATH"); home != nullptr && *home != '\0') {
        if (void *h = open_in(std::string(home) + "/lib64", name)) return h;
    }
    if (void *h = dlopen(name, RTLD_LAZY | RTLD_NODELETE)) return h;
    // Beside libmspti.so itself: CANN installs msPTI in its lib64, and this project installs (and
    // builds) its virtual CANN's libraries beside libmspti.so. A program may enable kinds before it
    // loads the runtime (a Python import later), when the library path alone finds nothing yet.
    std::string own = own_directory();
    return own.empty() ? nullptr : open_in(own, name);
}

namespace {
template <typename Fn>
bool resolve(void *lib, const char *name, Fn &out) {
    out = reinterpret_cast<Fn>(dlsym(lib, name));
    return out != nullptr;
}
}  // namespace

bool load_profapi(ProfapiApi &api) {
    void *lib = open_cann_library("libprofapi.so");
    if (lib == nullptr) return false;
    ProfapiApi a;
    if (!resolve(lib, "MsprofRegisterProfileCallback", a.MsprofRegisterProfileCallback) ||
        !resolve(lib, "profSetProfCommand", a.profSetProfCommand))
        return false;
    resolve(lib, "MsprofSysCycleTime", a.MsprofSysCycleTime);
    api = a;
    return true;
}

bool load_hal(HalApi &api) {
    void *lib = open_cann_library("libascend_hal.so");
    if (lib == nullptr) return false;
    HalApi h;
    bool ok = resolve(lib, "halGetDeviceInfo", h.halGetDeviceInfo) &&
              resolve(lib, "prof_drv_start", h.prof_drv_start) && resolve(lib, "prof_stop", h.prof_stop) &&
              resolve(lib, "prof_channel_poll", h.prof_channel_poll) &&
              resolve(lib, "prof_channel_read", h.prof_channel_read);
    if (!ok) return false;
    resolve(lib, "drvGetDevNum", h.drvGetDevNum);
    resolve(lib, "halGetAPIVersion", h.halGetAPIVersion);
    resolve(lib, "prof_drv_get_channels", h.prof_drv_get_channels);
    resolve(lib, "halProfDataFlush", h.halProfDataFlush);
    api = h;
    return true;
}

}  // namespace mspti::device
