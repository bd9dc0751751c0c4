// The four kernel-launch entry points. aclnn operators call aclrtLaunchKernelWithHostArgs through the
// dynamic symbol, so a profiler preloaded over this library sees every launch.
#include "kernel_launch.h"

#include <cstring>
#include <memory>
#include <vector>

#include "acl/acl.h"
#include "export.h"
#include "fault.h"
#include "memory_registry.h"
#include "report_spans.h"
#include "runtime.h"

namespace vnpu {
namespace {

// One launch: owns the copied argument block and releases it exactly once.
class KernelCall {
public:
    KernelCall(const KernelFunction &fn, const void *args, size_t size)
        : fn_(fn), args_(static_cast<const unsigned char *>(args), static_cast<const unsigned char *>(args) + size) {}
    ~KernelCall() {
        if (fn_.release != nullptr) {
            fn_.release(args_.data());
        }
    }
    KernelCall(const KernelCall &) = delete;
    KernelCall &operator=(const KernelCall &) = delete;
    void run() const { fn_.run(args_.data()); }

private:
    const KernelFunction &fn_;
    std::vector<unsigned char> args_;
};

aclError launch(aclrtFuncHandle func_handle, uint32_t num_blocks, aclrtStream stream, const void *args,
                size_t args_size) {
    report::ApiSpan span(cann::ApiLevel::kRuntime, "rtKernelLaunch");
    if (func_handle == nullptr || num_blocks == 0 || (args == nullptr && args_size > 0)) {
        return ACL_ERROR_INVALID_PARAM;
    }
    const KernelFunction *fn = find_kernel(func_handle);
    if (fn == nullptr) {
        return ACL_ERROR_RT_INVALID_HANDLE;
    }
    if (args_size != fn->args_size) {
        return ACL_ERROR_INVALID_PARAM;
    }
    std::shared_ptr<Stream> target;
    aclError rc = resolve_stream(stream, target);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    auto call = std::make_shared<KernelCall>(*fn, args, args_size);
    const cann::KernelInfo info{static_cast<uint32_t>(target->device_id()), target->id(), fn->name, fn->type};
    const cann::Task task = cann::kernel_enqueued(info);
    uint64_t seq = target->enqueue([call = std::move(call), task] {
        const uint64_t start = report::now_ns();
        call->run();
        fault::after_kernel();
        cann::task_executed(task, start, report::now_ns());
    });
    return seq != 0 ? ACL_SUCCESS : ACL_ERROR_INVALID_RESOURCE_HANDLE;
}

}  // namespace
}  // namespace vnpu

extern "C" {

VNPU_EXPORT aclError aclrtLaunchKernelWithHostArgs(aclrtFuncHandle func_handle, uint32_t num_blocks, aclrtStream stream,
                                                   aclrtLaunchKernelCfg *cfg, void *host_args, size_t args_size,
                                                   aclrtPlaceHolderInfo *place_holder_array, size_t place_holder_num) {
    (void)cfg;  // scheduling attributes do not change what the virtual NPU does
    if (place_holder_array == nullptr && place_holder_num > 0) {
        return ACL_ERROR_INVALID_PARAM;
    }
    return vnpu::launch(func_handle, num_blocks, stream, host_args, args_size);
}

namespace {
// Shared by the launch entry points; called directly, never through an exported symbol, so that
// an interposer sees one launch per call.
aclError launch_device_args(aclrtFuncHandle func_handle, uint32_t num_blocks, const void *args_data, size_t args_size,
                            aclrtStream stream) {
    if (args_size > 0 && args_data != nullptr &&
        !vnpu::MemoryRegistry::get().contains(args_data, args_size, vnpu::MemoryKind::Device)) {
        return ACL_ERROR_RT_PARAM_INVALID;  // the argument block must be device memory
    }
    return vnpu::launch(func_handle, num_blocks, stream, args_data, args_size);
}
}  // namespace

VNPU_EXPORT aclError aclrtLaunchKernel(aclrtFuncHandle func_handle, uint32_t num_blocks, const void *args_data,
                                       size_t args_size, aclrtStream stream) {
    return launch_device_args(func_handle, num_blocks, args_data, args_size, stream);
}

VNPU_EXPORT aclError aclrtLaunchKernelV2(aclrtFuncHandle func_handle, uint32_t num_blocks, const void *args_data,
                                         size_t args_size, aclrtLaunchKernelCfg *cfg, aclrtStream stream) {
    (void)cfg;
    return launch_device_args(func_handle, num_blocks, args_data, args_size, stream);
}

VNPU_EXPORT aclError aclrtLaunchKernelWithConfig(aclrtFuncHandle func_handle, uint32_t num_blocks, aclrtStream stream,
                                                 aclrtLaunchKernelCfg *cfg, aclrtArgsHandle args_handle,
                                                 void *reserve) {
    // Argument handles (aclrtKernelArgs*) are not modelled: there is no way to build one.
    (void)func_handle, (void)num_blocks, (void)stream, (void)cfg, (void)args_handle, (void)reserve;
    return ACL_ERROR_API_NOT_SUPPORT;
}

VNPU_EXPORT aclError aclrtBinaryGetFunctionByEntry(aclrtBinHandle bin_handle, uint64_t func_entry,
                                                   aclrtFuncHandle *func_handle) {
    // Kernel binaries are not loaded by the virtual NPU; its kernels are the built-in aclnn ones.
    (void)bin_handle, (void)func_entry, (void)func_handle;
    return ACL_ERROR_API_NOT_SUPPORT;
}

}  // extern "C"
