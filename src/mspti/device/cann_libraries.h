// Finds Ascend's profiling libraries as msPTI does: $ASCEND_HOME_PATH/lib64/<name> (its real path)
// when that file exists, else the bare name (the library path, or a copy the runtime already loaded,
// which glibc hands back: the reports of that copy are the ones that matter); and last, beside
// libmspti.so (CANN's lib64, where msPTI is installed; our build and install trees).
#pragma once

#include <cstddef>
#include <cstdint>

#include "device/hal_channel_reader.h"

namespace mspti::device {

/// libprofapi.so's functions libmspti calls.
struct ProfapiApi {
    int32_t (*MsprofRegisterProfileCallback)(int32_t type, void *callback, uint32_t length) = nullptr;
    int32_t (*profSetProfCommand)(void *command, uint32_t length) = nullptr;
    uint64_t (*MsprofSysCycleTime)() = nullptr;  ///< optional: the host clock of report times
    bool usable() const { return MsprofRegisterProfileCallback != nullptr && profSetProfCommand != nullptr; }
};

/// dlopen()s `name` the way msPTI looks for it; nullptr if not found. Never unloaded.
void *open_cann_library(const char *name);

/// Resolves libprofapi.so's functions; false (api untouched) when the library or a function is missing.
bool load_profapi(ProfapiApi &api);
/// Resolves libascend_hal.so's functions; false when the library or a required function is missing.
bool load_hal(HalApi &api);

}  // namespace mspti::device
