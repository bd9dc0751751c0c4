// ACL initialisation, devices and contexts.
#include <atomic>
#include <mutex>

#include "acl/acl.h"
#include "export.h"
#include "profiler_hooks.h"
#include "runtime.h"

using vnpu::Runtime;

namespace {

std::mutex g_initMutex;
int g_initCount = 0;
bool g_everInitialized = false;

} // namespace

extern "C" {

VNPU_EXPORT aclError aclInit(const char *configPath) {
    VNPU_ACL_SPAN("aclInit");
    (void)configPath;  // dump/profiling configuration files are not used by the virtual NPU
    Runtime::get();
    std::lock_guard<std::mutex> lock(g_initMutex);
    g_everInitialized = true;
    return g_initCount++ == 0 ? ACL_SUCCESS : ACL_ERROR_REPEAT_INITIALIZE;
}

VNPU_EXPORT aclError aclFinalize(void) {
    VNPU_ACL_SPAN("aclFinalize");
    {
        std::lock_guard<std::mutex> lock(g_initMutex);
        if (g_initCount == 0) {
            return g_everInitialized ? ACL_ERROR_REPEAT_FINALIZE : ACL_ERROR_UNINITIALIZE;
        }
        g_initCount = 0;
    }
    Runtime::get().releaseAll();
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion) {
    if (majorVersion == nullptr || minorVersion == nullptr || patchVersion == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    *majorVersion = ACL_MAJOR_VERSION;
    *minorVersion = ACL_MINOR_VERSION;
    *patchVersion = ACL_PATCH_VERSION;
    return ACL_SUCCESS;
}

VNPU_EXPORT const char *aclGetRecentErrMsg(void) { return nullptr; }

VNPU_EXPORT aclError aclrtSetDevice(int32_t deviceId) {
    VNPU_ACL_SPAN("aclrtSetDevice");
    Runtime &rt = Runtime::get();
    vnpu::Device *dev = rt.device(deviceId);
    if (dev == nullptr) {
        return ACL_ERROR_RT_INVALID_DEVICEID;
    }
    std::shared_ptr<vnpu::Context> context;
    {
        std::lock_guard<std::mutex> lock(dev->mu);
        if (dev->refCount++ == 0 || !dev->defaultContext) {
            dev->defaultContext = rt.createContext(deviceId, true);
        }
        context = dev->defaultContext;
    }
    vnpu::setCurrentContextHandle(context.get());
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtResetDevice(int32_t deviceId) {
    VNPU_ACL_SPAN("aclrtResetDevice");
    Runtime &rt = Runtime::get();
    vnpu::Device *dev = rt.device(deviceId);
    if (dev == nullptr) {
        return ACL_ERROR_RT_INVALID_DEVICEID;
    }
    std::shared_ptr<vnpu::Context> released;
    {
        std::lock_guard<std::mutex> lock(dev->mu);
        if (dev->refCount == 0) {
            return ACL_SUCCESS;  // nothing to release
        }
        if (--dev->refCount == 0) {
            released = std::move(dev->defaultContext);
        }
    }
    if (released) {
        if (vnpu::currentContextHandle() == released.get()) {
            vnpu::setCurrentContextHandle(nullptr);
        }
        rt.destroyContext(released);  // waits for the streams' pending tasks
    }
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtGetDevice(int32_t *deviceId) {
    if (deviceId == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    std::shared_ptr<vnpu::Context> context;
    aclError rc = vnpu::currentContext(context);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    *deviceId = context->deviceId;
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtGetDeviceCount(uint32_t *count) {
    if (count == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    *count = Runtime::get().deviceCount();
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtSynchronizeDevice(void) {
    VNPU_ACL_SPAN("aclrtSynchronizeDevice");
    std::shared_ptr<vnpu::Context> current;
    aclError rc = vnpu::currentContext(current);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    for (auto &context : Runtime::get().contexts.snapshot()) {
        if (context->deviceId != current->deviceId) {
            continue;
        }
        std::vector<std::shared_ptr<vnpu::Stream>> streams;
        {
            std::lock_guard<std::mutex> lock(context->mu);
            streams = context->streams;
        }
        context->defaultStream->synchronize();
        for (auto &stream : streams) {
            stream->synchronize();
        }
    }
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtGetRunMode(aclrtRunMode *runMode) {
    if (runMode == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    *runMode = ACL_HOST;
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtGetLogicDevIdByUserDevId(const int32_t userDevid, int32_t *const logicDevId) {
    if (logicDevId == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    if (Runtime::get().device(userDevid) == nullptr) {
        return ACL_ERROR_RT_INVALID_DEVICEID;
    }
    *logicDevId = userDevid;  // no ASCEND_RT_VISIBLE_DEVICES remapping
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId) {
    VNPU_ACL_SPAN("aclrtCreateContext");
    if (context == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    Runtime &rt = Runtime::get();
    if (rt.device(deviceId) == nullptr) {
        return ACL_ERROR_RT_INVALID_DEVICEID;
    }
    auto created = rt.createContext(deviceId, false);
    *context = created.get();
    vnpu::setCurrentContextHandle(created.get());
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtDestroyContext(aclrtContext context) {
    VNPU_ACL_SPAN("aclrtDestroyContext");
    if (context == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    Runtime &rt = Runtime::get();
    auto found = rt.contexts.find(context);
    if (!found) {
        return ACL_ERROR_INVALID_RESOURCE_HANDLE;
    }
    if (found->isDefault) {
        return ACL_ERROR_INVALID_PARAM;  // the implicit context goes with aclrtResetDevice
    }
    if (vnpu::currentContextHandle() == context) {
        vnpu::setCurrentContextHandle(nullptr);
    }
    rt.destroyContext(found);
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtSetCurrentContext(aclrtContext context) {
    VNPU_ACL_SPAN("aclrtSetCurrentContext");
    if (context == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    if (!Runtime::get().contexts.find(context)) {
        return ACL_ERROR_INVALID_RESOURCE_HANDLE;
    }
    vnpu::setCurrentContextHandle(context);
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtGetCurrentContext(aclrtContext *context) {
    if (context == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    std::shared_ptr<vnpu::Context> current;
    aclError rc = vnpu::currentContext(current);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    *context = current.get();
    return ACL_SUCCESS;
}

} // extern "C"
