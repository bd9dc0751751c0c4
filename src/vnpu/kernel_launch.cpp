// The four kernel-launch entry points. aclnn operators call aclrtLaunchKernelWithHostArgs through the
// dynamic symbol, so a profiler preloaded over this library sees every launch.
#include "kernel_launch.h"

#include <cstring>
#include <memory>
#include <vector>

#include "acl/acl.h"
#include "export.h"
#include "memory_registry.h"
#include "profiler_hooks.h"
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

aclError launch(aclrtFuncHandle funcHandle, uint32_t numBlocks, aclrtStream stream, const void *args,
                size_t argsSize) {
    profiler::ApiSpan span(VNPU_API_LEVEL_RUNTIME, "rtKernelLaunch");
    if (funcHandle == nullptr || numBlocks == 0 || (args == nullptr && argsSize > 0)) {
        return ACL_ERROR_INVALID_PARAM;
    }
    const KernelFunction *fn = findKernel(funcHandle);
    if (fn == nullptr) {
        return ACL_ERROR_RT_INVALID_HANDLE;
    }
    if (argsSize != fn->argsSize) {
        return ACL_ERROR_INVALID_PARAM;
    }
    std::shared_ptr<Stream> target;
    aclError rc = resolveStream(stream, target);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    auto call = std::make_shared<KernelCall>(*fn, args, argsSize);
    const vnpuKernelInfo info{static_cast<uint32_t>(target->deviceId()), target->id(), fn->name, fn->type};
    const profiler::ExecutionTag tag = profiler::kernelEnqueued(info);
    uint64_t seq = target->enqueue([call = std::move(call), tag] {
        const uint64_t start = profiler::nowNs();
        call->run();
        profiler::kernelExecuted(tag, start, profiler::nowNs());
    });
    return seq != 0 ? ACL_SUCCESS : ACL_ERROR_INVALID_RESOURCE_HANDLE;
}

} // namespace
} // namespace vnpu

extern "C" {

VNPU_EXPORT aclError aclrtLaunchKernelWithHostArgs(aclrtFuncHandle funcHandle, uint32_t numBlocks,
                                                   aclrtStream stream, aclrtLaunchKernelCfg *cfg, void *hostArgs,
                                                   size_t argsSize, aclrtPlaceHolderInfo *placeHolderArray,
                                                   size_t placeHolderNum) {
    (void)cfg;  // scheduling attributes do not change what the virtual NPU does
    if (placeHolderArray == nullptr && placeHolderNum > 0) {
        return ACL_ERROR_INVALID_PARAM;
    }
    return vnpu::launch(funcHandle, numBlocks, stream, hostArgs, argsSize);
}

namespace {
// Shared by the launch entry points; called directly, never through an exported symbol, so that
// an interposer sees one launch per call.
aclError launch_device_args(aclrtFuncHandle funcHandle, uint32_t numBlocks, const void *argsData, size_t argsSize,
                            aclrtStream stream) {
    if (argsSize > 0 && argsData != nullptr &&
        !vnpu::MemoryRegistry::get().contains(argsData, argsSize, vnpu::MemoryKind::Device)) {
        return ACL_ERROR_RT_PARAM_INVALID;  // the argument block must be device memory
    }
    return vnpu::launch(funcHandle, numBlocks, stream, argsData, argsSize);
}
}  // namespace

VNPU_EXPORT aclError aclrtLaunchKernel(aclrtFuncHandle funcHandle, uint32_t numBlocks, const void *argsData,
                                       size_t argsSize, aclrtStream stream) {
    return launch_device_args(funcHandle, numBlocks, argsData, argsSize, stream);
}

VNPU_EXPORT aclError aclrtLaunchKernelV2(aclrtFuncHandle funcHandle, uint32_t numBlocks, const void *argsData,
                                         size_t argsSize, aclrtLaunchKernelCfg *cfg, aclrtStream stream) {
    (void)cfg;
    return launch_device_args(funcHandle, numBlocks, argsData, argsSize, stream);
}

VNPU_EXPORT aclError aclrtLaunchKernelWithConfig(aclrtFuncHandle funcHandle, uint32_t numBlocks, aclrtStream stream,
                                                 aclrtLaunchKernelCfg *cfg, aclrtArgsHandle argsHandle,
                                                 void *reserve) {
    // Argument handles (aclrtKernelArgs*) are not modelled: there is no way to build one.
    (void)funcHandle, (void)numBlocks, (void)stream, (void)cfg, (void)argsHandle, (void)reserve;
    return ACL_ERROR_API_NOT_SUPPORT;
}

VNPU_EXPORT aclError aclrtBinaryGetFunctionByEntry(aclrtBinHandle binHandle, uint64_t funcEntry,
                                                   aclrtFuncHandle *funcHandle) {
    // Kernel binaries are not loaded by the virtual NPU; its kernels are the built-in aclnn ones.
    (void)binHandle, (void)funcEntry, (void)funcHandle;
    return ACL_ERROR_API_NOT_SUPPORT;
}

} // extern "C"
