// msPTI plumbing shared by the samples (modelled on the original common/helper_mspti.h):
// 8 MiB activity buffers, a complete callback that prints every record, Init/DeInit.
#pragma once

#include <cinttypes>
#include <cstdio>

#include "mspti/mspti.h"
#include "securec.h"  // malloc, free and exit come through it, as in msPTI's helper

#define MSPTI_CALL(call) \
    do { \
        msptiResult r_ = (call); \
        if (r_ != MSPTI_SUCCESS) { \
            std::printf("%s call failed, error code: %d\n", #call, static_cast<int>(r_)); \
            std::exit(1); \
        } \
    } while (0)

namespace sample {

constexpr size_t kBufferSize = 8 * 1024 * 1024;

inline msptiSubscriberHandle &subscriber() {
    static msptiSubscriberHandle handle = nullptr;
    return handle;
}

inline const char *memcpy_kind(msptiActivityMemcpyKind kind) {
    switch (kind) {
    case MSPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "HTOH";
    case MSPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HTOD";
    case MSPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DTOH";
    case MSPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DTOD";
    case MSPTI_ACTIVITY_MEMCPY_KIND_DEFAULT: return "DEFAULT";
    default: return "UNKNOWN";
    }
}

inline void print_record(const msptiActivity *record) {
    switch (record->kind) {
    case MSPTI_ACTIVITY_KIND_MARKER: {
        auto *m = reinterpret_cast<const msptiActivityMarker *>(record);
        if (m->sourceKind == MSPTI_ACTIVITY_SOURCE_KIND_HOST) {
            std::printf("[MARKER] flag: %d, sourceKind: HOST_DATA, timestamp: %" PRIu64 ", id: %" PRIu64
                        ", processId: %u, threadId: %u, name: %s, domain: %s\n",
                        m->flag, m->timestamp, m->id, m->objectId.pt.processId, m->objectId.pt.threadId, m->name,
                        m->domain);
        } else {
            std::printf("[MARKER] flag: %d, sourceKind: DEVICE_DATA, timestamp: %" PRIu64 ", id: %" PRIu64
                        ", deviceId: %u, streamId: %u, name: %s, domain: %s\n",
                        m->flag, m->timestamp, m->id, m->objectId.ds.deviceId, m->objectId.ds.streamId, m->name,
                        m->domain);
        }
        break;
    }
    case MSPTI_ACTIVITY_KIND_KERNEL: {
        auto *k = reinterpret_cast<const msptiActivityKernel *>(record);
        std::printf("[KERNEL] type: %s, name: %s, start: %" PRIu64 ", end: %" PRIu64
                    ", deviceId: %u, streamId: %u, correlationId: %" PRIu64 "\n",
                    k->type, k->name, k->start, k->end, k->ds.deviceId, k->ds.streamId, k->correlationId);
        break;
    }
    case MSPTI_ACTIVITY_KIND_API:
    case MSPTI_ACTIVITY_KIND_ACL_API:
    case MSPTI_ACTIVITY_KIND_NODE_API:
    case MSPTI_ACTIVITY_KIND_RUNTIME_API: {
        auto *a = reinterpret_cast<const msptiActivityApi *>(record);
        const char *tag = record->kind == MSPTI_ACTIVITY_KIND_API        ? "API"
                          : record->kind == MSPTI_ACTIVITY_KIND_ACL_API  ? "ACL_API"
                          : record->kind == MSPTI_ACTIVITY_KIND_NODE_API ? "NODE_API"
                                                                         : "RUNTIME_API";
        std::printf("[%s] name: %s, start: %" PRIu64 ", end: %" PRIu64
                    ", processId: %u, threadId: %u, "
                    "correlationId: %" PRIu64 "\n",
                    tag, a->name, a->start, a->end, a->pt.processId, a->pt.threadId, a->correlationId);
        break;
    }
    case MSPTI_ACTIVITY_KIND_HCCL: {
        auto *h = reinterpret_cast<const msptiActivityHccl *>(record);
        std::printf("[HCCL] name: %s, start: %" PRIu64 ", end: %" PRIu64
                    ", deviceId: %u, streamId: %u, "
                    "bandWidth: %f GB/s, commName: %s\n",
                    h->name, h->start, h->end, h->ds.deviceId, h->ds.streamId, h->bandWidth, h->commName);
        break;
    }
    case MSPTI_ACTIVITY_KIND_MEMORY: {
        auto *m = reinterpret_cast<const msptiActivityMemory *>(record);
        std::printf("[MEMORY] memoryOperationType: %s, memoryKind: %d, correlationId: %" PRIu64 ", start: %" PRIu64
                    ", end: %" PRIu64 ", address: %" PRIu64 ", bytes: %" PRIu64 ", processId: %u, deviceId: %u\n",
                    m->memoryOperationType == MSPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION ? "ALLOCATION"
                                                                                              : "RELEASE",
                    m->memoryKind, m->correlationId, m->start, m->end, m->address, m->bytes, m->processId, m->deviceId);
        break;
    }
    case MSPTI_ACTIVITY_KIND_MEMSET: {
        auto *m = reinterpret_cast<const msptiActivityMemset *>(record);
        std::printf("[MEMSET] value: %u, bytes: %" PRIu64 ", start: %" PRIu64 ", end: %" PRIu64
                    ", deviceId: %u, streamId: %u, correlationId: %" PRIu64 ", isAsync: %u\n",
                    m->value, m->bytes, m->start, m->end, m->deviceId, m->streamId, m->correlationId, m->isAsync);
        break;
    }
    case MSPTI_ACTIVITY_KIND_MEMCPY: {
        auto *m = reinterpret_cast<const msptiActivityMemcpy *>(record);
        std::printf("[MEMCPY] copyKind: %s, bytes: %" PRIu64 ", start: %" PRIu64 ", end: %" PRIu64
                    ", deviceId: %u, streamId: %u, correlationId: %" PRIu64 ", isAsync: %u\n",
                    memcpy_kind(m->copyKind), m->bytes, m->start, m->end, m->deviceId, m->streamId, m->correlationId,
                    m->isAsync);
        break;
    }
    case MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        auto *e = reinterpret_cast<const msptiActivityExternalCorrelation *>(record);
        std::printf("[EXTERNAL_CORRELATION] externalKind: %d, externalId: %" PRIu64 ", correlationId: %" PRIu64 "\n",
                    e->externalKind, e->externalId, e->correlationId);
        break;
    }
    case MSPTI_ACTIVITY_KIND_COMMUNICATION: {
        auto *c = reinterpret_cast<const msptiActivityCommunication *>(record);
        std::printf("[COMMUNICATION] name: %s, commName: %s, algType: %s, dataType: %d, count: %" PRIu64
                    ", start: %" PRIu64 ", end: %" PRIu64 ", deviceId: %u, streamId: %u, correlationId: %" PRIu64 "\n",
                    c->name, c->commName, c->algType, c->dataType, c->count, c->start, c->end, c->ds.deviceId,
                    c->ds.streamId, c->correlationId);
        break;
    }
    default: std::printf("[UNKNOWN] kind: %d\n", record->kind); break;
    }
}

inline void UserBufferRequest(uint8_t **buffer, size_t *size, size_t *maxNumRecords) {
    *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, kBufferSize));
    *size = *buffer != nullptr ? kBufferSize : 0;
    *maxNumRecords = 0;
}

inline void UserBufferComplete(uint8_t *buffer, size_t size, size_t validSize) {
    (void)size;
    if (buffer != nullptr && validSize > 0) {
        msptiActivity *record = nullptr;
        while (msptiActivityGetNextRecord(buffer, validSize, &record) == MSPTI_SUCCESS) print_record(record);
    }
    std::free(buffer);
}

// Subscribe (the initialiser in msPTI) and register the buffer callbacks.
inline void InitMspti(msptiCallbackFunc callback = nullptr, void *userdata = nullptr,
                      msptiBuffersCallbackCompleteFunc complete = &UserBufferComplete) {
    MSPTI_CALL(msptiSubscribe(&subscriber(), callback, userdata));
    MSPTI_CALL(msptiActivityRegisterCallbacks(&UserBufferRequest, complete));
}

// As the originals: unsubscribe, then flush what is left.
inline void DeInitMspti() {
    MSPTI_CALL(msptiUnsubscribe(subscriber()));
    MSPTI_CALL(msptiActivityFlushAll(1));
}

}  // namespace sample
