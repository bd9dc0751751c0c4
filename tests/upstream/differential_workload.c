/* One workload for the differential test (test_differential.py): run once on our libmspti and once on
 * msPTI's, on the same virtual device. Written against msPTI's public headers only, as its samples are,
 * and built against each CANN tree's include/ and lib64/. Every record received is printed as one line
 * of JSON on stdout: string fields as text, pointers left out, numbers as numbers; stdout holds
 * records alone. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "mspti/mspti.h"
#include "mstx/ms_tools_ext.h"

#define BUFFER_SIZE (4u * 1024u * 1024u)

#define CHECK(expr) \
    do { \
        long long rc_ = (long long)(expr); \
        if (rc_ != 0) { \
            fprintf(stderr, "FAIL: %s returned %lld at line %d\n", #expr, rc_, __LINE__); \
            exit(1); \
        } \
    } while (0)

/* Prints a string field as a JSON string (NULL as null); the names here hold no control characters but
 * quotes and backslashes are escaped all the same. */
static void print_str(const char *key, const char *value) {
    if (value == NULL) {
        printf(",\"%s\":null", key);
        return;
    }
    printf(",\"%s\":\"", key);
    for (const char *p = value; *p != '\0'; ++p) {
        if (*p == '"' || *p == '\\') putchar('\\');
        if ((unsigned char)*p < 0x20) {
            printf("\\u%04x", (unsigned)(unsigned char)*p);
            continue;
        }
        putchar(*p);
    }
    putchar('"');
}

static void print_record(const msptiActivity *record) {
    printf("{\"kind\":%d", (int)record->kind);
    switch (record->kind) {
    case MSPTI_ACTIVITY_KIND_MARKER: {
        const msptiActivityMarker *m = (const msptiActivityMarker *)record;
        printf(",\"flag\":%d,\"sourceKind\":%d,\"timestamp\":%" PRIu64 ",\"id\":%" PRIu64, (int)m->flag,
               (int)m->sourceKind, m->timestamp, m->id);
        if (m->sourceKind == MSPTI_ACTIVITY_SOURCE_KIND_HOST)
            printf(",\"processId\":%u,\"threadId\":%u", m->objectId.pt.processId, m->objectId.pt.threadId);
        else
            printf(",\"deviceId\":%u,\"streamId\":%u", m->objectId.ds.deviceId, m->objectId.ds.streamId);
        print_str("name", m->name);
        print_str("domain", m->domain);
        break;
    }
    case MSPTI_ACTIVITY_KIND_API:
    case MSPTI_ACTIVITY_KIND_ACL_API:
    case MSPTI_ACTIVITY_KIND_NODE_API:
    case MSPTI_ACTIVITY_KIND_RUNTIME_API: {
        const msptiActivityApi *a = (const msptiActivityApi *)record;
        printf(",\"start\":%" PRIu64 ",\"end\":%" PRIu64 ",\"processId\":%u,\"threadId\":%u,\"correlationId\":%" PRIu64,
               a->start, a->end, a->pt.processId, a->pt.threadId, a->correlationId);
        print_str("name", a->name);
        break;
    }
    case MSPTI_ACTIVITY_KIND_KERNEL: {
        const msptiActivityKernel *k = (const msptiActivityKernel *)record;
        printf(",\"start\":%" PRIu64 ",\"end\":%" PRIu64 ",\"deviceId\":%u,\"streamId\":%u,\"correlationId\":%" PRIu64,
               k->start, k->end, k->ds.deviceId, k->ds.streamId, k->correlationId);
        print_str("type", k->type);
        print_str("name", k->name);
        break;
    }
    case MSPTI_ACTIVITY_KIND_HCCL: {
        const msptiActivityHccl *h = (const msptiActivityHccl *)record;
        printf(",\"start\":%" PRIu64 ",\"end\":%" PRIu64 ",\"deviceId\":%u,\"streamId\":%u,\"bandWidth\":%g", h->start,
               h->end, h->ds.deviceId, h->ds.streamId, h->bandWidth);
        print_str("name", h->name);
        print_str("commName", h->commName);
        break;
    }
    case MSPTI_ACTIVITY_KIND_MEMORY: {
        const msptiActivityMemory *m = (const msptiActivityMemory *)record;
        printf(",\"memoryOperationType\":%d,\"memoryKind\":%d,\"correlationId\":%" PRIu64 ",\"start\":%" PRIu64
               ",\"end\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"processId\":%u,\"deviceId\":%u,\"streamId\":%u",
               (int)m->memoryOperationType, (int)m->memoryKind, m->correlationId, m->start, m->end, m->bytes,
               m->processId, m->deviceId, m->streamId);
        break;
    }
    case MSPTI_ACTIVITY_KIND_MEMSET: {
        const msptiActivityMemset *m = (const msptiActivityMemset *)record;
        printf(",\"value\":%u,\"bytes\":%" PRIu64 ",\"start\":%" PRIu64 ",\"end\":%" PRIu64
               ",\"deviceId\":%u,\"streamId\":%u,\"correlationId\":%" PRIu64 ",\"isAsync\":%u",
               m->value, m->bytes, m->start, m->end, m->deviceId, m->streamId, m->correlationId, (unsigned)m->isAsync);
        break;
    }
    case MSPTI_ACTIVITY_KIND_MEMCPY: {
        const msptiActivityMemcpy *m = (const msptiActivityMemcpy *)record;
        printf(",\"copyKind\":%d,\"bytes\":%" PRIu64 ",\"start\":%" PRIu64 ",\"end\":%" PRIu64
               ",\"deviceId\":%u,\"streamId\":%u,\"correlationId\":%" PRIu64 ",\"isAsync\":%u",
               (int)m->copyKind, m->bytes, m->start, m->end, m->deviceId, m->streamId, m->correlationId,
               (unsigned)m->isAsync);
        break;
    }
    case MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        const msptiActivityExternalCorrelation *e = (const msptiActivityExternalCorrelation *)record;
        printf(",\"externalKind\":%d,\"externalId\":%" PRIu64 ",\"correlationId\":%" PRIu64, (int)e->externalKind,
               e->externalId, e->correlationId);
        break;
    }
    default: break;
    }
    printf("}\n");
}

/* malloc's blocks are 16-byte aligned, more than the 8 records need. */
static void buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
    *buffer = malloc(BUFFER_SIZE);
    *size = *buffer == NULL ? 0 : BUFFER_SIZE;
    *max_records = 0;
}

static void buffer_completed(uint8_t *buffer, size_t size, size_t valid_size) {
    (void)size;
    msptiActivity *record = NULL;
    while (valid_size > 0 && msptiActivityGetNextRecord(buffer, valid_size, &record) == MSPTI_SUCCESS)
        print_record(record);
    fflush(stdout);
    free(buffer);
}

static void api_callback(void *userdata, msptiCallbackDomain domain, msptiCallbackId id,
                         const msptiCallbackData *data) {
    (void)userdata, (void)domain, (void)id, (void)data;
}

static const msptiActivityKind kinds[] = {
    MSPTI_ACTIVITY_KIND_MARKER,
    MSPTI_ACTIVITY_KIND_KERNEL,
    MSPTI_ACTIVITY_KIND_API,
    MSPTI_ACTIVITY_KIND_MEMORY,
    MSPTI_ACTIVITY_KIND_MEMSET,
    MSPTI_ACTIVITY_KIND_MEMCPY,
    MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
    MSPTI_ACTIVITY_KIND_ACL_API,
    MSPTI_ACTIVITY_KIND_NODE_API,
    MSPTI_ACTIVITY_KIND_RUNTIME_API,
};

/* out = self + other on 8 floats, through aclnn's two-phase API: one NODE_API launch and one kernel. */
static void add_kernel(aclrtStream stream, void *self_dev, void *other_dev, void *out_dev) {
    int64_t shape[1] = {8};
    int64_t strides[1] = {1};
    aclTensor *self = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, self_dev);
    aclTensor *other = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, other_dev);
    aclTensor *out = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, out_dev);
    float alpha_value = 1.0f;
    aclScalar *alpha = aclCreateScalar(&alpha_value, ACL_FLOAT);
    uint64_t workspace_size = 0;
    aclOpExecutor *executor = NULL;
    CHECK(aclnnAddGetWorkspaceSize(self, other, alpha, out, &workspace_size, &executor));
    CHECK(aclnnAdd(NULL, 0, executor, stream));
    aclDestroyTensor(self);
    aclDestroyTensor(other);
    aclDestroyTensor(out);
    aclDestroyScalar(alpha);
}

int main(void) {
    msptiSubscriberHandle subscriber = NULL;
    CHECK(msptiSubscribe(&subscriber, api_callback, NULL));
    CHECK(msptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); ++i) CHECK(msptiActivityEnable(kinds[i]));

    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtStream stream = NULL;
    CHECK(aclrtCreateStream(&stream));

    /* Markers: host-only and with a stream, then in a domain. */
    mstxMarkA("diff_mark_host", NULL);
    mstxMarkA("diff_mark_stream", stream);
    mstxRangeId host_range = mstxRangeStartA("diff_range_host", NULL);
    mstxRangeId stream_range = mstxRangeStartA("diff_range_stream", stream);

    /* Memory: alloc, copy in, set, copy on the device and back. */
    const size_t bytes = 8 * sizeof(float);
    float host_in[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    float host_out[8] = {0};
    void *a = NULL, *b = NULL, *c = NULL;
    CHECK(aclrtMalloc(&a, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&b, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&c, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemcpy(a, bytes, host_in, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemset(b, bytes, 0, bytes));
    CHECK(aclrtMemsetAsync(c, bytes, 0, bytes, stream));
    CHECK(aclrtMemcpyAsync(b, bytes, a, bytes, ACL_MEMCPY_DEVICE_TO_DEVICE, stream));

    /* Kernels, the second and third under an external correlation id. */
    add_kernel(stream, a, b, c);
    CHECK(msptiActivityPushExternalCorrelationId(MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 4242));
    add_kernel(stream, c, b, a);
    add_kernel(stream, a, c, b);
    uint64_t popped = 0;
    CHECK(msptiActivityPopExternalCorrelationId(MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &popped));
    if (popped != 4242) {
        fprintf(stderr, "FAIL: popped external id %" PRIu64 ", pushed 4242\n", popped);
        return 1;
    }
    CHECK(aclrtSynchronizeStream(stream));
    CHECK(aclrtMemcpy(host_out, bytes, b, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    mstxRangeEnd(stream_range);
    mstxRangeEnd(host_range);

    mstxDomainHandle_t domain = mstxDomainCreateA("diff_domain");
    mstxDomainMarkA(domain, "diff_domain_mark", stream);
    mstxRangeId domain_range = mstxDomainRangeStartA(domain, "diff_domain_range", NULL);
    mstxDomainRangeEnd(domain, domain_range);
    CHECK(aclrtSynchronizeStream(stream));

    CHECK(aclrtFree(a));
    CHECK(aclrtFree(b));
    CHECK(aclrtFree(c));
    CHECK(aclrtDestroyStream(stream));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    CHECK(msptiActivityFlushAll(1));
    CHECK(msptiUnsubscribe(subscriber));
    /* Element 7: a = 7, b = a (the copy), c = a + b = 14, a = c + b = 21, b = a + c = 35: the copies
     * and the kernels ran, in order. */
    if (host_out[7] != 35.0f) {
        fprintf(stderr, "FAIL: result[7] is %g, expected 35\n", (double)host_out[7]);
        return 1;
    }
    return 0;
}
