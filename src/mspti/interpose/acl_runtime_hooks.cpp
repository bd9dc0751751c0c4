// Interposed ACL runtime entry points: device, context and stream management (callbacks only)
// and the four kernel launches (a new correlation id each, before ENTER; docs/compatibility.md, "Interposed functions").
#include "device/cann_collector.h"
#include "core/correlation.h"
#include "interpose/acl_abi.h"
#include "interpose/api_scope.h"
#include "interpose/real_functions.h"

using mspti::interpose::ApiScope;
using mspti::interpose::kAclApiNotSupport;
using mspti::interpose::RealSymbol;
namespace real = mspti::interpose::real;

namespace {

// Forwards with ENTER/EXIT around the real call; the runtime's own error if it is missing.
template <typename Fn, typename... Args>
aclError forward(RealSymbol<Fn> &real, msptiCallbackId cbid, const char *name, uint64_t correlationId, Args... args) {
    Fn fn = real.get();
    if (fn == nullptr) return kAclApiNotSupport;
    ApiScope scope(MSPTI_CB_DOMAIN_RUNTIME, cbid, name, correlationId);
    aclError result = fn(args...);
    scope.exit(&result);
    return result;
}

}  // namespace

// aclInit (the interposition probe) is defined in interposition.cpp.

MSPTI_INTERPOSE aclError aclrtSetDevice(int32_t deviceId) {
    aclError result = forward(real::aclrtSetDevice, MSPTI_CBID_RUNTIME_DEVICE_SET, "aclrtSetDevice", 0, deviceId);
    mspti::device::attach_lazily();
    return result;
}

MSPTI_INTERPOSE aclError aclrtResetDevice(int32_t deviceId) {
    return forward(real::aclrtResetDevice, MSPTI_CBID_RUNTIME_DEVICE_RESET, "aclrtResetDevice", 0, deviceId);
}

MSPTI_INTERPOSE aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId) {
    return forward(real::aclrtCreateContext, MSPTI_CBID_RUNTIME_CONTEXT_CREATED, "aclrtCreateContext", 0, context,
                   deviceId);
}

MSPTI_INTERPOSE aclError aclrtDestroyContext(aclrtContext context) {
    return forward(real::aclrtDestroyContext, MSPTI_CBID_RUNTIME_CONTEXT_DESTROY, "aclrtDestroyContext", 0, context);
}

MSPTI_INTERPOSE aclError aclrtCreateStream(aclrtStream *stream) {
    return forward(real::aclrtCreateStream, MSPTI_CBID_RUNTIME_STREAM_CREATED, "aclrtCreateStream", 0, stream);
}

MSPTI_INTERPOSE aclError aclrtDestroyStream(aclrtStream stream) {
    return forward(real::aclrtDestroyStream, MSPTI_CBID_RUNTIME_STREAM_DESTROY, "aclrtDestroyStream", 0, stream);
}

MSPTI_INTERPOSE aclError aclrtSynchronizeStream(aclrtStream stream) {
    return forward(real::aclrtSynchronizeStream, MSPTI_CBID_RUNTIME_STREAM_SYNCHRONIZED, "aclrtSynchronizeStream", 0,
                   stream);
}

MSPTI_INTERPOSE aclError aclrtLaunchKernel(aclrtFuncHandle funcHandle, uint32_t numBlocks, const void *argsData,
                                           size_t argsSize, aclrtStream stream) {
    return forward(real::aclrtLaunchKernel, MSPTI_CBID_RUNTIME_LAUNCH, "aclrtLaunchKernel",
                   mspti::correlation::generate(), funcHandle, numBlocks, argsData, argsSize, stream);
}

MSPTI_INTERPOSE aclError aclrtLaunchKernelV2(aclrtFuncHandle funcHandle, uint32_t numBlocks, const void *argsData,
                                             size_t argsSize, aclrtLaunchKernelCfg *cfg, aclrtStream stream) {
    return forward(real::aclrtLaunchKernelV2, MSPTI_CBID_RUNTIME_LAUNCH, "aclrtLaunchKernelV2",
                   mspti::correlation::generate(), funcHandle, numBlocks, argsData, argsSize, cfg, stream);
}

MSPTI_INTERPOSE aclError aclrtLaunchKernelWithConfig(aclrtFuncHandle funcHandle, uint32_t numBlocks, aclrtStream stream,
                                                     aclrtLaunchKernelCfg *cfg, aclrtArgsHandle argsHandle,
                                                     void *reserve) {
    return forward(real::aclrtLaunchKernelWithConfig, MSPTI_CBID_RUNTIME_LAUNCH, "aclrtLaunchKernelWithConfig",
                   mspti::correlation::generate(), funcHandle, numBlocks, stream, cfg, argsHandle, reserve);
}

MSPTI_INTERPOSE aclError aclrtLaunchKernelWithHostArgs(aclrtFuncHandle funcHandle, uint32_t numBlocks,
                                                       aclrtStream stream, aclrtLaunchKernelCfg *cfg, void *hostArgs,
                                                       size_t argsSize, aclrtPlaceHolderInfo *placeHolderArray,
                                                       size_t placeHolderNum) {
    return forward(real::aclrtLaunchKernelWithHostArgs, MSPTI_CBID_RUNTIME_LAUNCH, "aclrtLaunchKernelWithHostArgs",
                   mspti::correlation::generate(), funcHandle, numBlocks, stream, cfg, hostArgs, argsSize,
                   placeHolderArray, placeHolderNum);
}
