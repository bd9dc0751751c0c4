#include "interpose/memory_records.h"

#include <unistd.h>

#include "core/activity_engine.h"
#include "interpose/real_functions.h"

namespace mspti::interpose {
namespace {

uint32_t current_device() {
    auto fn = real::aclrtGetDevice.get();
    int32_t device = -1;
    if (fn == nullptr || fn(&device) != kAclSuccess || device < 0) return MSPTI_INVALID_DEVICE_ID;
    return static_cast<uint32_t>(device);
}

uint32_t stream_id(bool async, aclrtStream stream) {
    if (!async) return MSPTI_INVALID_STREAM_ID;
    auto fn = real::aclrtStreamGetId.get();
    int32_t id = -1;
    if (fn == nullptr || fn(stream, &id) != kAclSuccess || id < 0) return MSPTI_INVALID_STREAM_ID;
    return static_cast<uint32_t>(id);
}

}  // namespace

msptiActivityMemcpyKind memcpy_kind(aclrtMemcpyKind kind) {
    switch (kind) {
    case 0: return MSPTI_ACTIVITY_MEMCPY_KIND_HTOH;
    case 1: return MSPTI_ACTIVITY_MEMCPY_KIND_HTOD;
    case 2: return MSPTI_ACTIVITY_MEMCPY_KIND_DTOH;
    case 3: return MSPTI_ACTIVITY_MEMCPY_KIND_DTOD;
    case 4: return MSPTI_ACTIVITY_MEMCPY_KIND_DEFAULT;
    case 5: return MSPTI_ACTIVITY_MEMCPY_KIND_HTOD;  // HOST_TO_BUF_TO_DEVICE
    default: return MSPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN;
    }
}

void record_memory(msptiActivityMemoryOperationType op, uint64_t address, uint64_t bytes, HostSpan span,
                   uint64_t correlationId) {
    msptiActivityMemory r{};
    r.kind = MSPTI_ACTIVITY_KIND_MEMORY;
    r.memoryOperationType = op;
    r.memoryKind = MSPTI_ACTIVITY_MEMORY_DEVICE;
    r.correlationId = correlationId;
    r.start = span.start;
    r.end = span.end;
    r.address = address;
    r.bytes = bytes;
    r.processId = static_cast<uint32_t>(getpid());
    r.deviceId = current_device();
    r.streamId = MSPTI_INVALID_STREAM_ID;
    ActivityEngine::record(r);
}

void record_memcpy(aclrtMemcpyKind kind, uint64_t bytes, HostSpan span, bool async, aclrtStream stream,
                   uint64_t correlationId) {
    msptiActivityMemcpy r{};
    r.kind = MSPTI_ACTIVITY_KIND_MEMCPY;
    r.copyKind = memcpy_kind(kind);
    r.bytes = bytes;
    r.start = span.start;
    r.end = span.end;
    r.deviceId = current_device();
    r.streamId = stream_id(async, stream);
    r.correlationId = correlationId;
    r.isAsync = async ? 1 : 0;
    ActivityEngine::record(r);
}

void record_memset(int32_t value, uint64_t bytes, HostSpan span, bool async, aclrtStream stream,
                   uint64_t correlationId) {
    msptiActivityMemset r{};
    r.kind = MSPTI_ACTIVITY_KIND_MEMSET;
    r.value = static_cast<uint32_t>(value);
    r.bytes = bytes;
    r.start = span.start;
    r.end = span.end;
    r.deviceId = current_device();
    r.streamId = stream_id(async, stream);
    r.correlationId = correlationId;
    r.isAsync = async ? 1 : 0;
    ActivityEngine::record(r);
}

}  // namespace mspti::interpose
