/* One workload for the differential test (test_differential.py): run once on our libmspti and once on
 * msPTI's, on the same virtual device. Written against msPTI's public headers only, as its samples are,
 * and built against each CANN tree's include/ and lib64/. Every record received is printed as one line
 * of JSON on stdout (differential_records.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "mspti/mspti.h"
#include "mstx/ms_tools_ext.h"

#include "differential_records.h"

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
