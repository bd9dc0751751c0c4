// Interposed ACL memory functions (docs/compatibility.md, "Interposed functions"): every one takes a new correlation id before
// ENTER; malloc/free/memcpy/memset also write a host record, before EXIT, when their kind is on.
#include "core/activity_engine.h"
#include "core/clock.h"
#include "core/correlation.h"
#include "interpose/acl_abi.h"
#include "interpose/allocation_table.h"
#include "interpose/api_scope.h"
#include "interpose/memory_records.h"
#include "interpose/real_functions.h"

using namespace mspti::interpose;
using mspti::ActivityEngine;

namespace {

bool on(int kind) { return ActivityEngine::instance().enabled(kind); }
uint64_t now() { return mspti::clock::now_ns(); }

// A memory call with no record: id, ENTER, real call, EXIT.
template <typename Fn, typename... Args>
aclError plain(RealSymbol<Fn> &real, msptiCallbackId cbid, const char *name, Args... args) {
    uint64_t id = mspti::correlation::generate();
    Fn fn = real.get();
    if (fn == nullptr) return kAclApiNotSupport;
    ApiScope scope(MSPTI_CB_DOMAIN_RUNTIME, cbid, name, id);
    aclError result = fn(args...);
    scope.exit(&result);
    return result;
}

// An allocation: MEMORY ALLOCATION record with the returned address.
template <typename Fn, typename... Rest>
aclError allocate(RealSymbol<Fn> &real, msptiCallbackId cbid, const char *name, void **ptr, size_t size, Rest... rest) {
    uint64_t id = mspti::correlation::generate();
    Fn fn = real.get();
    if (fn == nullptr) return kAclApiNotSupport;
    ApiScope scope(MSPTI_CB_DOMAIN_RUNTIME, cbid, name, id);
    bool record = on(MSPTI_ACTIVITY_KIND_MEMORY);
    HostSpan span{record ? now() : 0, 0};
    aclError result = fn(ptr, size, rest...);
    if (record) {
        span.end = now();
        uint64_t address = result == kAclSuccess && ptr != nullptr ? reinterpret_cast<uint64_t>(*ptr) : 0;
        if (address != 0) remember_allocation(address, size);
        record_memory(MSPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, address, size, span, id);
    }
    scope.exit(&result);
    return result;
}

// A release: MEMORY RELEASE record with the bytes of the matching allocation (0 if unseen).
template <typename Fn>
aclError release(RealSymbol<Fn> &real, msptiCallbackId cbid, const char *name, void *ptr) {
    uint64_t id = mspti::correlation::generate();
    Fn fn = real.get();
    if (fn == nullptr) return kAclApiNotSupport;
    ApiScope scope(MSPTI_CB_DOMAIN_RUNTIME, cbid, name, id);
    uint64_t address = reinterpret_cast<uint64_t>(ptr);
    // Forget before the real free: once freed, another thread may get the same address.
    uint64_t bytes = forget_allocation(address);
    bool record = on(MSPTI_ACTIVITY_KIND_MEMORY);
    HostSpan span{record ? now() : 0, 0};
    aclError result = fn(ptr);
    if (record) {
        span.end = now();
        record_memory(MSPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, address, bytes, span, id);
    }
    scope.exit(&result);
    return result;
}

template <typename Fn, typename... Args>
aclError copy(RealSymbol<Fn> &real, msptiCallbackId cbid, const char *name, aclrtMemcpyKind kind, uint64_t bytes,
              bool async, aclrtStream stream, Args... args) {
    uint64_t id = mspti::correlation::generate();
    Fn fn = real.get();
    if (fn == nullptr) return kAclApiNotSupport;
    ApiScope scope(MSPTI_CB_DOMAIN_RUNTIME, cbid, name, id);
    bool record = on(MSPTI_ACTIVITY_KIND_MEMCPY);
    HostSpan span{record ? now() : 0, 0};
    aclError result = fn(args...);
    if (record) {
        span.end = now();
        record_memcpy(kind, bytes, span, async, stream, id);
    }
    scope.exit(&result);
    return result;
}

template <typename Fn, typename... Args>
aclError set(RealSymbol<Fn> &real, msptiCallbackId cbid, const char *name, int32_t value, uint64_t bytes, bool async,
             aclrtStream stream, Args... args) {
    uint64_t id = mspti::correlation::generate();
    Fn fn = real.get();
    if (fn == nullptr) return kAclApiNotSupport;
    ApiScope scope(MSPTI_CB_DOMAIN_RUNTIME, cbid, name, id);
    bool record = on(MSPTI_ACTIVITY_KIND_MEMSET);
    HostSpan span{record ? now() : 0, 0};
    aclError result = fn(args...);
    if (record) {
        span.end = now();
        record_memset(value, bytes, span, async, stream, id);
    }
    scope.exit(&result);
    return result;
}

}  // namespace

MSPTI_INTERPOSE aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy) {
    return allocate(real::aclrtMalloc, MSPTI_CBID_RUNTIME_MALLOC, "aclrtMalloc", devPtr, size, policy);
}

MSPTI_INTERPOSE aclError aclrtMallocWithCfg(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
                                            aclrtMallocConfig *cfg) {
    return allocate(real::aclrtMallocWithCfg, MSPTI_CBID_RUNTIME_MALLOC, "aclrtMallocWithCfg", devPtr, size, policy,
                    cfg);
}

MSPTI_INTERPOSE aclError aclrtMallocForTaskScheduler(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
                                                     aclrtMallocConfig *cfg) {
    return allocate(real::aclrtMallocForTaskScheduler, MSPTI_CBID_RUNTIME_MALLOC, "aclrtMallocForTaskScheduler", devPtr,
                    size, policy, cfg);
}

// msPTI reports aclrtMallocCached under MALLOC (15), not MALLOC_CACHED (19).
MSPTI_INTERPOSE aclError aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy) {
    return allocate(real::aclrtMallocCached, MSPTI_CBID_RUNTIME_MALLOC, "aclrtMallocCached", devPtr, size, policy);
}

MSPTI_INTERPOSE aclError aclrtFree(void *devPtr) {
    return release(real::aclrtFree, MSPTI_CBID_RUNTIME_FREE, "aclrtFree", devPtr);
}

MSPTI_INTERPOSE aclError aclrtMallocHost(void **hostPtr, size_t size) {
    return plain(real::aclrtMallocHost, MSPTI_CBID_RUNTIME_MALLOC_HOST, "aclrtMallocHost", hostPtr, size);
}

MSPTI_INTERPOSE aclError aclrtFreeHost(void *hostPtr) {
    return plain(real::aclrtFreeHost, MSPTI_CBID_RUNTIME_FREE_HOST, "aclrtFreeHost", hostPtr);
}

MSPTI_INTERPOSE aclError aclrtMemFlush(void *devPtr, size_t size) {
    return plain(real::aclrtMemFlush, MSPTI_CBID_RUNTIME_FLUSH_CACHE, "aclrtMemFlush", devPtr, size);
}

MSPTI_INTERPOSE aclError aclrtMemInvalidate(void *devPtr, size_t size) {
    return plain(real::aclrtMemInvalidate, MSPTI_CBID_RUNTIME_INVALID_CACHE, "aclrtMemInvalidate", devPtr, size);
}

MSPTI_INTERPOSE aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind) {
    return copy(real::aclrtMemcpy, MSPTI_CBID_RUNTIME_MEMCPY, "aclrtMemcpy", kind, count, false, nullptr, dst, destMax,
                src, count, kind);
}

MSPTI_INTERPOSE aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                                          aclrtMemcpyKind kind, aclrtStream stream) {
    return copy(real::aclrtMemcpyAsync, MSPTI_CBID_RUNTIME_MEMCPY_ASYNC, "aclrtMemcpyAsync", kind, count, true, stream,
                dst, destMax, src, count, kind, stream);
}

MSPTI_INTERPOSE aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                       size_t height, aclrtMemcpyKind kind) {
    return copy(real::aclrtMemcpy2d, MSPTI_CBID_RUNTIME_MEM_CPY2D, "aclrtMemcpy2d", kind,
                static_cast<uint64_t>(width) * height, false, nullptr, dst, dpitch, src, spitch, width, height, kind);
}

MSPTI_INTERPOSE aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                            size_t height, aclrtMemcpyKind kind, aclrtStream stream) {
    return copy(real::aclrtMemcpy2dAsync, MSPTI_CBID_RUNTIME_MEM_CPY2D_ASYNC, "aclrtMemcpy2dAsync", kind,
                static_cast<uint64_t>(width) * height, true, stream, dst, dpitch, src, spitch, width, height, kind,
                stream);
}

MSPTI_INTERPOSE aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count) {
    return set(real::aclrtMemset, MSPTI_CBID_RUNTIME_MEM_SET, "aclrtMemset", value, count, false, nullptr, devPtr,
               maxCount, value, count);
}

MSPTI_INTERPOSE aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count,
                                          aclrtStream stream) {
    return set(real::aclrtMemsetAsync, MSPTI_CBID_RUNTIME_MEM_SET_ASYNC, "aclrtMemsetAsync", value, count, true, stream,
               devPtr, maxCount, value, count, stream);
}

MSPTI_INTERPOSE aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free, size_t *total) {
    return plain(real::aclrtGetMemInfo, MSPTI_CBID_RUNTIME_MEM_GET_INFO, "aclrtGetMemInfo", attr, free, total);
}

MSPTI_INTERPOSE aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment, void *expectPtr,
                                                uint64_t flags) {
    return allocate(real::aclrtReserveMemAddress, MSPTI_CBID_RUNTIME_RESERVE_MEM_ADDRESS, "aclrtReserveMemAddress",
                    virPtr, size, alignment, expectPtr, flags);
}

MSPTI_INTERPOSE aclError aclrtReleaseMemAddress(void *virPtr) {
    return release(real::aclrtReleaseMemAddress, MSPTI_CBID_RUNTIME_RELEASE_MEM_ADDRESS, "aclrtReleaseMemAddress",
                   virPtr);
}

MSPTI_INTERPOSE aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size, const aclrtPhysicalMemProp *prop,
                                             uint64_t flags) {
    return plain(real::aclrtMallocPhysical, MSPTI_CBID_RUNTIME_MALLOC_PHYSICAL, "aclrtMallocPhysical", handle, size,
                 prop, flags);
}

MSPTI_INTERPOSE aclError aclrtFreePhysical(aclrtDrvMemHandle handle) {
    return plain(real::aclrtFreePhysical, MSPTI_CBID_RUNTIME_FREE_PHYSICAL, "aclrtFreePhysical", handle);
}

MSPTI_INTERPOSE aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle, aclrtMemHandleType handleType,
                                                         uint64_t flags, uint64_t *shareableHandle) {
    return plain(real::aclrtMemExportToShareableHandle, MSPTI_CBID_RUNTIME_MEM_EXPORT_TO_SHAREABLE_HANDLE,
                 "aclrtMemExportToShareableHandle", handle, handleType, flags, shareableHandle);
}

MSPTI_INTERPOSE aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId,
                                                           aclrtDrvMemHandle *handle) {
    return plain(real::aclrtMemImportFromShareableHandle, MSPTI_CBID_RUNTIME_MEM_IMPORT_FROM_SHAREABLE_HANDLE,
                 "aclrtMemImportFromShareableHandle", shareableHandle, deviceId, handle);
}

MSPTI_INTERPOSE aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle, int32_t *pid, size_t pidNum) {
    return plain(real::aclrtMemSetPidToShareableHandle, MSPTI_CBID_RUNTIME_MEM_SET_PID_TO_SHAREABLE_HANDLE,
                 "aclrtMemSetPidToShareableHandle", shareableHandle, pid, pidNum);
}
