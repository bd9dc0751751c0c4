// Memory API. Device memory is host memory behind the allocation registry: every device-side pointer and
// size is checked against it, so a bad pointer gets an error code instead of corrupting the process.
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "acl/acl.h"
#include "export.h"
#include "memory_registry.h"
#include "report_spans.h"
#include "runtime.h"

using vnpu::Allocation;
using vnpu::MemoryKind;
using vnpu::MemoryRegistry;
using vnpu::Runtime;

namespace {

constexpr size_t kAlignment = 64;

// As on A2/A3: the size is rounded up to 32 bytes, plus 32 bytes.
size_t padded_size(size_t size) { return ((size + 31) / 32) * 32 + 32; }

aclError allocate(void **out, size_t size, MemoryKind kind) {
    if (out == nullptr || size == 0) {
        return ACL_ERROR_INVALID_PARAM;
    }
    int32_t device_id = -1;
    vnpu::Device *dev = nullptr;
    if (kind == MemoryKind::Device) {
        std::shared_ptr<vnpu::Context> context;
        aclError rc = vnpu::current_context(context);
        if (rc != ACL_SUCCESS) {
            return rc;
        }
        device_id = context->device_id;
        dev = Runtime::get().device(device_id);
        const uint64_t limit = Runtime::get().device_memory_bytes();
        uint64_t used = dev->used_bytes.fetch_add(size);
        if (used + size > limit || used + size < used) {
            dev->used_bytes.fetch_sub(size);
            return ACL_ERROR_RT_MEMORY_ALLOCATION;
        }
    }
    const size_t padded = padded_size(size);
    void *block = padded >= size ? std::aligned_alloc(kAlignment, ((padded + kAlignment - 1) / kAlignment) * kAlignment)
                                 : nullptr;
    if (block == nullptr) {
        if (dev != nullptr) {
            dev->used_bytes.fetch_sub(size);
        }
        return kind == MemoryKind::Device ? ACL_ERROR_RT_MEMORY_ALLOCATION : ACL_ERROR_BAD_ALLOC;
    }
    MemoryRegistry::get().add(Allocation{reinterpret_cast<uintptr_t>(block), size, kind, device_id});
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
        if (vnpu::Device *dev = Runtime::get().device(block->device_id)) {
            dev->used_bytes.fetch_sub(block->size);
        }
    }
    std::free(ptr);
    return ACL_SUCCESS;
}

bool is_device_memory(const void *p) {
    auto block = MemoryRegistry::get().find(p);
    return block && block->kind == MemoryKind::Device;
}

// Checks one side of a copy: device sides must be registered device memory holding `bytes`; host sides
// must not be device memory, and if they are pinned host memory they must hold `bytes` too.
aclError check_side(const void *p, size_t bytes, bool device_side) {
    const MemoryRegistry &registry = MemoryRegistry::get();
    if (device_side) {
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
    bool dst_device = false;
    bool src_device = false;
};

aclError check_copy(void *dst, size_t dst_extent, const void *src, size_t src_extent, aclrtMemcpyKind kind,
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
    case ACL_MEMCPY_DEFAULT: sides = {is_device_memory(dst), is_device_memory(src)}; break;
    default: return ACL_ERROR_INVALID_PARAM;  // includes INNER/INTER_DEVICE_TO_DEVICE, as the runtime
    }
    aclError rc = check_side(dst, dst_extent, sides.dst_device);
    return rc != ACL_SUCCESS ? rc : check_side(src, src_extent, sides.src_device);
}

bool is_pinned_or_device(const void *p) { return MemoryRegistry::get().find(p).has_value(); }

// Enqueues `work` on the stream. Unpinned host memory may go away when the call returns, so then the call
// waits for the copy, as CANN does for non-pinned host buffers.
aclError enqueue_copy(aclrtStream stream, std::function<void()> work, bool wait_for_it) {
    std::shared_ptr<vnpu::Stream> target;
    aclError rc = vnpu::resolve_stream(stream, target);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    uint64_t seq = target->enqueue(std::move(work));
    if (seq == 0) {
        return ACL_ERROR_INVALID_RESOURCE_HANDLE;
    }
    if (wait_for_it) {
        target->wait_for(seq);
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
    return check_copy(dst, extent2d(dpitch, width, height), src, extent2d(spitch, width, height), kind, sides);
}

aclError check_memset(void *dev_ptr, size_t max_count, size_t count) {
    if (dev_ptr == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    if (count > max_count || !MemoryRegistry::get().contains_any(dev_ptr, count)) {
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    return ACL_SUCCESS;
}

}  // namespace

extern "C" {

VNPU_EXPORT aclError aclrtMalloc(void **dev_ptr, size_t size, aclrtMemMallocPolicy policy) {
    VNPU_ACL_SPAN("aclrtMalloc");
    (void)policy;  // huge pages make no difference here
    return allocate(dev_ptr, size, MemoryKind::Device);
}

VNPU_EXPORT aclError aclrtMallocWithCfg(void **dev_ptr, size_t size, aclrtMemMallocPolicy policy,
                                        aclrtMallocConfig *cfg) {
    VNPU_ACL_SPAN("aclrtMallocWithCfg");
    (void)policy;
    (void)cfg;
    return allocate(dev_ptr, size, MemoryKind::Device);
}

VNPU_EXPORT aclError aclrtMallocForTaskScheduler(void **dev_ptr, size_t size, aclrtMemMallocPolicy policy,
                                                 aclrtMallocConfig *cfg) {
    VNPU_ACL_SPAN("aclrtMallocForTaskScheduler");
    (void)policy;
    (void)cfg;
    return allocate(dev_ptr, size, MemoryKind::Device);
}

VNPU_EXPORT aclError aclrtMallocCached(void **dev_ptr, size_t size, aclrtMemMallocPolicy policy) {
    VNPU_ACL_SPAN("aclrtMallocCached");
    (void)policy;
    return allocate(dev_ptr, size, MemoryKind::Device);
}

VNPU_EXPORT aclError aclrtFree(void *dev_ptr) {
    VNPU_ACL_SPAN("aclrtFree");
    return release(dev_ptr, MemoryKind::Device);
}

VNPU_EXPORT aclError aclrtMallocHost(void **host_ptr, size_t size) {
    VNPU_ACL_SPAN("aclrtMallocHost");
    return allocate(host_ptr, size, MemoryKind::Host);
}

VNPU_EXPORT aclError aclrtFreeHost(void *host_ptr) {
    VNPU_ACL_SPAN("aclrtFreeHost");
    return release(host_ptr, MemoryKind::Host);
}

namespace {
// Host memory is the device memory: flushing and invalidating only check the range. Called
// directly, so an interposer sees exactly one call per entry point.
aclError check_cache_range(void *dev_ptr, size_t size) {
    if (dev_ptr == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    return MemoryRegistry::get().contains_any(dev_ptr, size) ? ACL_SUCCESS : ACL_ERROR_RT_PARAM_INVALID;
}
}  // namespace

VNPU_EXPORT aclError aclrtMemFlush(void *dev_ptr, size_t size) { return check_cache_range(dev_ptr, size); }

VNPU_EXPORT aclError aclrtMemInvalidate(void *dev_ptr, size_t size) { return check_cache_range(dev_ptr, size); }

VNPU_EXPORT aclError aclrtMemcpy(void *dst, size_t dest_max, const void *src, size_t count, aclrtMemcpyKind kind) {
    VNPU_ACL_SPAN("aclrtMemcpy");
    if (count == 0) {
        return ACL_SUCCESS;
    }
    if (count > dest_max && dst != nullptr && src != nullptr) {
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    CopySides sides;
    aclError rc = check_copy(dst, count, src, count, kind, sides);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    std::memmove(dst, src, count);
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtMemcpyAsync(void *dst, size_t dest_max, const void *src, size_t count, aclrtMemcpyKind kind,
                                      aclrtStream stream) {
    VNPU_ACL_SPAN("aclrtMemcpyAsync");
    if (count == 0) {
        return ACL_SUCCESS;
    }
    if (count > dest_max && dst != nullptr && src != nullptr) {
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    CopySides sides;
    aclError rc = check_copy(dst, count, src, count, kind, sides);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    if (!sides.dst_device && !sides.src_device) {
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;  // async host-to-host is not supported in EP mode
    }
    if (kind == ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE) {
        // The host data is staged now, so the caller may reuse its buffer at once.
        auto staged = std::make_shared<std::vector<unsigned char>>(static_cast<const unsigned char *>(src),
                                                                   static_cast<const unsigned char *>(src) + count);
        return enqueue_copy(
            stream, [dst, staged] { std::memcpy(dst, staged->data(), staged->size()); }, false);
    }
    const bool unpinned = !is_pinned_or_device(dst) || !is_pinned_or_device(src);
    return enqueue_copy(
        stream, [dst, src, count] { std::memmove(dst, src, count); }, unpinned);
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
    const bool unpinned = !is_pinned_or_device(dst) || !is_pinned_or_device(src);
    return enqueue_copy(
        stream, [=] { copy2d(dst, dpitch, src, spitch, width, height); }, unpinned);
}

VNPU_EXPORT aclError aclrtMemset(void *dev_ptr, size_t max_count, int32_t value, size_t count) {
    VNPU_ACL_SPAN("aclrtMemset");
    if (count == 0) {
        return ACL_SUCCESS;
    }
    aclError rc = check_memset(dev_ptr, max_count, count);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    std::memset(dev_ptr, value & 0xff, count);
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtMemsetAsync(void *dev_ptr, size_t max_count, int32_t value, size_t count,
                                      aclrtStream stream) {
    VNPU_ACL_SPAN("aclrtMemsetAsync");
    if (count == 0) {
        return ACL_SUCCESS;
    }
    aclError rc = check_memset(dev_ptr, max_count, count);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    return enqueue_copy(
        stream, [dev_ptr, value, count] { std::memset(dev_ptr, value & 0xff, count); }, false);
}

VNPU_EXPORT aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free, size_t *total) {
    VNPU_ACL_SPAN("aclrtGetMemInfo");
    if (free == nullptr || total == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    std::shared_ptr<vnpu::Context> context;
    aclError rc = vnpu::current_context(context);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    if (attr < ACL_DDR_MEM || attr > ACL_MEM_P2P_HUGE1G) {
        *free = 0;
        *total = 0;
        return ACL_SUCCESS;
    }
    const uint64_t capacity = Runtime::get().device_memory_bytes();
    const uint64_t used = Runtime::get().device(context->device_id)->used_bytes.load();
    *total = capacity;
    *free = used < capacity ? capacity - used : 0;
    return ACL_SUCCESS;
}

// Virtual memory management and IPC sharing are not modelled by the virtual NPU.
VNPU_EXPORT aclError aclrtReserveMemAddress(void **vir_ptr, size_t size, size_t alignment, void *expect_ptr,
                                            uint64_t flags) {
    (void)vir_ptr, (void)size, (void)alignment, (void)expect_ptr, (void)flags;
    return ACL_ERROR_API_NOT_SUPPORT;
}
VNPU_EXPORT aclError aclrtReleaseMemAddress(void *vir_ptr) {
    (void)vir_ptr;
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
VNPU_EXPORT aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle, aclrtMemHandleType handle_type,
                                                     uint64_t flags, uint64_t *shareable_handle) {
    (void)handle, (void)handle_type, (void)flags, (void)shareable_handle;
    return ACL_ERROR_API_NOT_SUPPORT;
}
VNPU_EXPORT aclError aclrtMemImportFromShareableHandle(uint64_t shareable_handle, int32_t device_id,
                                                       aclrtDrvMemHandle *handle) {
    (void)shareable_handle, (void)device_id, (void)handle;
    return ACL_ERROR_API_NOT_SUPPORT;
}
VNPU_EXPORT aclError aclrtMemSetPidToShareableHandle(uint64_t shareable_handle, int32_t *pid, size_t pid_num) {
    (void)shareable_handle, (void)pid, (void)pid_num;
    return ACL_ERROR_API_NOT_SUPPORT;
}

}  // extern "C"
