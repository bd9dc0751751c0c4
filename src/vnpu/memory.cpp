// Memory API. Device memory is host memory behind the allocation registry: every device-side pointer and
// size is checked against it, so a bad pointer gets an error code instead of corrupting the process.
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "acl/acl.h"
#include "export.h"
#include "memory_registry.h"
#include "profiler_hooks.h"
#include "runtime.h"

using vnpu::Allocation;
using vnpu::MemoryKind;
using vnpu::MemoryRegistry;
using vnpu::Runtime;

namespace {

constexpr size_t kAlignment = 64;

// As on A2/A3: the size is rounded up to 32 bytes, plus 32 bytes.
size_t paddedSize(size_t size) { return ((size + 31) / 32) * 32 + 32; }

aclError allocate(void **out, size_t size, MemoryKind kind) {
    if (out == nullptr || size == 0) {
        return ACL_ERROR_INVALID_PARAM;
    }
    int32_t deviceId = -1;
    vnpu::Device *dev = nullptr;
    if (kind == MemoryKind::Device) {
        std::shared_ptr<vnpu::Context> context;
        aclError rc = vnpu::currentContext(context);
        if (rc != ACL_SUCCESS) {
            return rc;
        }
        deviceId = context->deviceId;
        dev = Runtime::get().device(deviceId);
        const uint64_t limit = Runtime::get().deviceMemoryBytes();
        uint64_t used = dev->usedBytes.fetch_add(size);
        if (used + size > limit || used + size < used) {
            dev->usedBytes.fetch_sub(size);
            return ACL_ERROR_RT_MEMORY_ALLOCATION;
        }
    }
    const size_t padded = paddedSize(size);
    void *block = padded >= size ? std::aligned_alloc(kAlignment, ((padded + kAlignment - 1) / kAlignment) * kAlignment)
                                 : nullptr;
    if (block == nullptr) {
        if (dev != nullptr) {
            dev->usedBytes.fetch_sub(size);
        }
        return kind == MemoryKind::Device ? ACL_ERROR_RT_MEMORY_ALLOCATION : ACL_ERROR_BAD_ALLOC;
    }
    MemoryRegistry::get().add(Allocation{reinterpret_cast<uintptr_t>(block), size, kind, deviceId});
    *out = block;
    return ACL_SUCCESS;
}

aclError release(void *ptr, MemoryKind kind) {
    if (ptr == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    auto block = MemoryRegistry::get().remove(ptr, kind);
    if (!block) {
        return ACL_ERROR_RT_MEMORY_FREE;
    }
    if (kind == MemoryKind::Device) {
        if (vnpu::Device *dev = Runtime::get().device(block->deviceId)) {
            dev->usedBytes.fetch_sub(block->size);
        }
    }
    std::free(ptr);
    return ACL_SUCCESS;
}

bool isDeviceMemory(const void *p) {
    auto block = MemoryRegistry::get().find(p);
    return block && block->kind == MemoryKind::Device;
}

// Checks one side of a copy: device sides must be registered device memory holding `bytes`; host sides
// must not be device memory, and if they are pinned host memory they must hold `bytes` too.
aclError checkSide(const void *p, size_t bytes, bool deviceSide) {
    const MemoryRegistry &registry = MemoryRegistry::get();
    if (deviceSide) {
        return registry.contains(p, bytes, MemoryKind::Device) ? ACL_SUCCESS : ACL_ERROR_RT_PARAM_INVALID;
    }
    auto block = registry.find(p);
    if (!block) {
        return ACL_SUCCESS;  // ordinary host memory: cannot be checked
    }
    if (block->kind == MemoryKind::Device) {
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    return registry.contains(p, bytes, MemoryKind::Host) ? ACL_SUCCESS : ACL_ERROR_RT_PARAM_INVALID;
}

struct CopySides {
    bool dstDevice = false;
    bool srcDevice = false;
};

aclError checkCopy(void *dst, size_t dstExtent, const void *src, size_t srcExtent, aclrtMemcpyKind kind,
                   CopySides &sides) {
    if (dst == nullptr || src == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST: sides = {false, false}; break;
    case ACL_MEMCPY_HOST_TO_DEVICE:
    case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE: sides = {true, false}; break;
    case ACL_MEMCPY_DEVICE_TO_HOST: sides = {false, true}; break;
    case ACL_MEMCPY_DEVICE_TO_DEVICE: sides = {true, true}; break;
    case ACL_MEMCPY_DEFAULT: sides = {isDeviceMemory(dst), isDeviceMemory(src)}; break;
    default: return ACL_ERROR_INVALID_PARAM;  // includes INNER/INTER_DEVICE_TO_DEVICE, as the runtime
    }
    aclError rc = checkSide(dst, dstExtent, sides.dstDevice);
    return rc != ACL_SUCCESS ? rc : checkSide(src, srcExtent, sides.srcDevice);
}

bool isPinnedOrDevice(const void *p) { return MemoryRegistry::get().find(p).has_value(); }

// Enqueues `work` on the stream. Unpinned host memory may go away when the call returns, so then the call
// waits for the copy, as CANN does for non-pinned host buffers.
aclError enqueueCopy(aclrtStream stream, std::function<void()> work, bool waitForIt) {
    std::shared_ptr<vnpu::Stream> target;
    aclError rc = vnpu::resolveStream(stream, target);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    uint64_t seq = target->enqueue(std::move(work));
    if (seq == 0) {
        return ACL_ERROR_INVALID_RESOURCE_HANDLE;
    }
    if (waitForIt) {
        target->waitFor(seq);
    }
    return ACL_SUCCESS;
}

size_t extent2d(size_t pitch, size_t width, size_t height) { return pitch * (height - 1) + width; }

void copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height) {
    auto *d = static_cast<unsigned char *>(dst);
    const auto *s = static_cast<const unsigned char *>(src);
    for (size_t row = 0; row < height; ++row) {
        std::memmove(d + row * dpitch, s + row * spitch, width);
    }
}

aclError check2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                 aclrtMemcpyKind kind, CopySides &sides) {
    if (dst == nullptr || src == nullptr || width > dpitch || width > spitch) {
        return ACL_ERROR_INVALID_PARAM;
    }
    return checkCopy(dst, extent2d(dpitch, width, height), src, extent2d(spitch, width, height), kind, sides);
}

aclError checkMemset(void *devPtr, size_t maxCount, size_t count) {
    if (devPtr == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    if (count > maxCount || !MemoryRegistry::get().containsAny(devPtr, count)) {
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    return ACL_SUCCESS;
}

} // namespace

extern "C" {

VNPU_EXPORT aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy) {
    VNPU_ACL_SPAN("aclrtMalloc");
    (void)policy;  // huge pages make no difference here
    return allocate(devPtr, size, MemoryKind::Device);
}

VNPU_EXPORT aclError aclrtMallocWithCfg(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
                                        aclrtMallocConfig *cfg) {
    VNPU_ACL_SPAN("aclrtMallocWithCfg");
    (void)policy;
    (void)cfg;
    return allocate(devPtr, size, MemoryKind::Device);
}

VNPU_EXPORT aclError aclrtMallocForTaskScheduler(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
                                                 aclrtMallocConfig *cfg) {
    VNPU_ACL_SPAN("aclrtMallocForTaskScheduler");
    (void)policy;
    (void)cfg;
    return allocate(devPtr, size, MemoryKind::Device);
}

VNPU_EXPORT aclError aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy) {
    VNPU_ACL_SPAN("aclrtMallocCached");
    (void)policy;
    return allocate(devPtr, size, MemoryKind::Device);
}

VNPU_EXPORT aclError aclrtFree(void *devPtr) {
    VNPU_ACL_SPAN("aclrtFree");
    return release(devPtr, MemoryKind::Device);
}

VNPU_EXPORT aclError aclrtMallocHost(void **hostPtr, size_t size) {
    VNPU_ACL_SPAN("aclrtMallocHost");
    return allocate(hostPtr, size, MemoryKind::Host);
}

VNPU_EXPORT aclError aclrtFreeHost(void *hostPtr) {
    VNPU_ACL_SPAN("aclrtFreeHost");
    return release(hostPtr, MemoryKind::Host);
}

namespace {
// Host memory is the device memory: flushing and invalidating only check the range. Called
// directly, so an interposer sees exactly one call per entry point.
aclError check_cache_range(void *devPtr, size_t size) {
    if (devPtr == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    return MemoryRegistry::get().containsAny(devPtr, size) ? ACL_SUCCESS : ACL_ERROR_RT_PARAM_INVALID;
}
}  // namespace

VNPU_EXPORT aclError aclrtMemFlush(void *devPtr, size_t size) { return check_cache_range(devPtr, size); }

VNPU_EXPORT aclError aclrtMemInvalidate(void *devPtr, size_t size) { return check_cache_range(devPtr, size); }

VNPU_EXPORT aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind) {
    VNPU_ACL_SPAN("aclrtMemcpy");
    if (count == 0) {
        return ACL_SUCCESS;
    }
    if (count > destMax && dst != nullptr && src != nullptr) {
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    CopySides sides;
    aclError rc = checkCopy(dst, count, src, count, kind, sides);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    std::memmove(dst, src, count);
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                                      aclrtMemcpyKind kind, aclrtStream stream) {
    VNPU_ACL_SPAN("aclrtMemcpyAsync");
    if (count == 0) {
        return ACL_SUCCESS;
    }
    if (count > destMax && dst != nullptr && src != nullptr) {
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    CopySides sides;
    aclError rc = checkCopy(dst, count, src, count, kind, sides);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    if (!sides.dstDevice && !sides.srcDevice) {
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;  // async host-to-host is not supported in EP mode
    }
    if (kind == ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE) {
        // The host data is staged now, so the caller may reuse its buffer at once.
        auto staged = std::make_shared<std::vector<unsigned char>>(static_cast<const unsigned char *>(src),
                                                                   static_cast<const unsigned char *>(src) + count);
        return enqueueCopy(stream, [dst, staged] { std::memcpy(dst, staged->data(), staged->size()); }, false);
    }
    const bool unpinned = !isPinnedOrDevice(dst) || !isPinnedOrDevice(src);
    return enqueueCopy(stream, [dst, src, count] { std::memmove(dst, src, count); }, unpinned);
}

VNPU_EXPORT aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                   size_t height, aclrtMemcpyKind kind) {
    VNPU_ACL_SPAN("aclrtMemcpy2d");
    if (width == 0 || height == 0) {
        return ACL_SUCCESS;
    }
    CopySides sides;
    aclError rc = check2d(dst, dpitch, src, spitch, width, height, kind, sides);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    copy2d(dst, dpitch, src, spitch, width, height);
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                        size_t height, aclrtMemcpyKind kind, aclrtStream stream) {
    VNPU_ACL_SPAN("aclrtMemcpy2dAsync");
    if (width == 0 || height == 0) {
        return ACL_SUCCESS;
    }
    CopySides sides;
    aclError rc = check2d(dst, dpitch, src, spitch, width, height, kind, sides);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    const bool unpinned = !isPinnedOrDevice(dst) || !isPinnedOrDevice(src);
    return enqueueCopy(
        stream, [=] { copy2d(dst, dpitch, src, spitch, width, height); }, unpinned);
}

VNPU_EXPORT aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count) {
    VNPU_ACL_SPAN("aclrtMemset");
    if (count == 0) {
        return ACL_SUCCESS;
    }
    aclError rc = checkMemset(devPtr, maxCount, count);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    std::memset(devPtr, value & 0xff, count);
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count,
                                      aclrtStream stream) {
    VNPU_ACL_SPAN("aclrtMemsetAsync");
    if (count == 0) {
        return ACL_SUCCESS;
    }
    aclError rc = checkMemset(devPtr, maxCount, count);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    return enqueueCopy(stream, [devPtr, value, count] { std::memset(devPtr, value & 0xff, count); }, false);
}

VNPU_EXPORT aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free, size_t *total) {
    VNPU_ACL_SPAN("aclrtGetMemInfo");
    if (free == nullptr || total == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    std::shared_ptr<vnpu::Context> context;
    aclError rc = vnpu::currentContext(context);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    if (attr < ACL_DDR_MEM || attr > ACL_MEM_P2P_HUGE1G) {
        *free = 0;
        *total = 0;
        return ACL_SUCCESS;
    }
    const uint64_t capacity = Runtime::get().deviceMemoryBytes();
    const uint64_t used = Runtime::get().device(context->deviceId)->usedBytes.load();
    *total = capacity;
    *free = used < capacity ? capacity - used : 0;
    return ACL_SUCCESS;
}

// Virtual memory management and IPC sharing are not modelled by the virtual NPU.
VNPU_EXPORT aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment, void *expectPtr,
                                            uint64_t flags) {
    (void)virPtr, (void)size, (void)alignment, (void)expectPtr, (void)flags;
    return ACL_ERROR_API_NOT_SUPPORT;
}
VNPU_EXPORT aclError aclrtReleaseMemAddress(void *virPtr) {
    (void)virPtr;
    return ACL_ERROR_API_NOT_SUPPORT;
}
VNPU_EXPORT aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size, const aclrtPhysicalMemProp *prop,
                                         uint64_t flags) {
    (void)handle, (void)size, (void)prop, (void)flags;
    return ACL_ERROR_API_NOT_SUPPORT;
}
VNPU_EXPORT aclError aclrtFreePhysical(aclrtDrvMemHandle handle) {
    (void)handle;
    return ACL_ERROR_API_NOT_SUPPORT;
}
VNPU_EXPORT aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle, aclrtMemHandleType handleType,
                                                     uint64_t flags, uint64_t *shareableHandle) {
    (void)handle, (void)handleType, (void)flags, (void)shareableHandle;
    return ACL_ERROR_API_NOT_SUPPORT;
}
VNPU_EXPORT aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId,
                                                       aclrtDrvMemHandle *handle) {
    (void)shareableHandle, (void)deviceId, (void)handle;
    return ACL_ERROR_API_NOT_SUPPORT;
}
VNPU_EXPORT aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle, int32_t *pid, size_t pidNum) {
    (void)shareableHandle, (void)pid, (void)pidNum;
    return ACL_ERROR_API_NOT_SUPPORT;
}

} // extern "C"
