// ACL initialisation, devices and contexts.
#include <atomic>
#include <mutex>

#include "acl/acl.h"
#include "export.h"
#include "report_spans.h"
#include "runtime.h"

using vnpu::Runtime;

namespace {

std::mutex g_initMutex;
int g_initCount = 0;
bool g_everInitialized = false;

}  // namespace

extern "C" {

VNPU_EXPORT aclError aclInit(const char *config_path) {
    VNPU_ACL_SPAN("aclInit");
    (void)config_path;  // dump/profiling configuration files are not used by the virtual NPU
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
    Runtime::get().release_all();
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtGetVersion(int32_t *major_version, int32_t *minor_version, int32_t *patch_version) {
    if (major_version == nullptr || minor_version == nullptr || patch_version == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    *major_version = ACL_MAJOR_VERSION;
    *minor_version = ACL_MINOR_VERSION;
    *patch_version = ACL_PATCH_VERSION;
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtSetDevice(int32_t device_id) {
    VNPU_ACL_SPAN("aclrtSetDevice");
    Runtime &rt = Runtime::get();
    vnpu::Device *dev = rt.device(device_id);
    if (dev == nullptr) {
        return ACL_ERROR_RT_INVALID_DEVICEID;
    }
    std::shared_ptr<vnpu::Context> context;
    bool opened = false;
    {
        std::lock_guard<std::mutex> lock(dev->mu);
        opened = dev->ref_count++ == 0;
        if (opened || !dev->default_context) {
            dev->default_context = rt.create_context(device_id, true);
        }
        context = dev->default_context;
    }
    vnpu::set_current_context_handle(context.get());
    if (opened) {
        vnpu::cann::device_state(device_id, true);  // outside the lock: a profiler starts its device tasks here
    }
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtResetDevice(int32_t device_id) {
    VNPU_ACL_SPAN("aclrtResetDevice");
    Runtime &rt = Runtime::get();
    vnpu::Device *dev = rt.device(device_id);
    if (dev == nullptr) {
        return ACL_ERROR_RT_INVALID_DEVICEID;
    }
    std::shared_ptr<vnpu::Context> released;
    {
        std::lock_guard<std::mutex> lock(dev->mu);
        if (dev->ref_count == 0) {
            return ACL_SUCCESS;  // nothing to release
        }
        if (--dev->ref_count == 0) {
            released = std::move(dev->default_context);
        }
    }
    if (released) {
        if (vnpu::current_context_handle() == released.get()) {
            vnpu::set_current_context_handle(nullptr);
        }
        rt.destroy_context(released);  // waits for the streams' pending tasks
        vnpu::cann::device_state(device_id, false);
    }
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtGetDevice(int32_t *device_id) {
    if (device_id == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    std::shared_ptr<vnpu::Context> context;
    aclError rc = vnpu::current_context(context);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    *device_id = context->device_id;
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtGetDeviceCount(uint32_t *count) {
    if (count == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    *count = Runtime::get().device_count();
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtSynchronizeDevice(void) {
    VNPU_ACL_SPAN("aclrtSynchronizeDevice");
    std::shared_ptr<vnpu::Context> current;
    aclError rc = vnpu::current_context(current);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    aclError result = ACL_SUCCESS;
    for (auto &context : Runtime::get().contexts.snapshot()) {
        if (context->device_id != current->device_id) {
            continue;
        }
        std::vector<std::shared_ptr<vnpu::Stream>> streams;
        {
            std::lock_guard<std::mutex> lock(context->mu);
            streams = context->streams;
        }
        // Every stream is waited for; the first failed task found is reported.
        aclError first = vnpu::synchronize_and_report(*context->default_stream);
        for (auto &stream : streams) {
            const aclError stream_rc = vnpu::synchronize_and_report(*stream);
            first = first != ACL_SUCCESS ? first : stream_rc;
        }
        if (first != ACL_SUCCESS) {
            result = first;
        }
    }
    return result;
}

VNPU_EXPORT aclError aclrtGetRunMode(aclrtRunMode *run_mode) {
    if (run_mode == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    *run_mode = ACL_HOST;
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtGetLogicDevIdByUserDevId(const int32_t user_devid, int32_t *const logic_dev_id) {
    if (logic_dev_id == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    if (Runtime::get().device(user_devid) == nullptr) {
        return ACL_ERROR_RT_INVALID_DEVICEID;
    }
    *logic_dev_id = user_devid;  // no ASCEND_RT_VISIBLE_DEVICES remapping
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtCreateContext(aclrtContext *context, int32_t device_id) {
    VNPU_ACL_SPAN("aclrtCreateContext");
    if (context == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    Runtime &rt = Runtime::get();
    if (rt.device(device_id) == nullptr) {
        return ACL_ERROR_RT_INVALID_DEVICEID;
    }
    auto created = rt.create_context(device_id, false);
    *context = created.get();
    vnpu::set_current_context_handle(created.get());
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
    if (found->is_default) {
        return ACL_ERROR_INVALID_PARAM;  // the implicit context goes with aclrtResetDevice
    }
    if (vnpu::current_context_handle() == context) {
        vnpu::set_current_context_handle(nullptr);
    }
    rt.destroy_context(found);
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
    vnpu::set_current_context_handle(context);
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtGetCurrentContext(aclrtContext *context) {
    if (context == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    std::shared_ptr<vnpu::Context> current;
    aclError rc = vnpu::current_context(current);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    *context = current.get();
    return ACL_SUCCESS;
}

}  // extern "C"
