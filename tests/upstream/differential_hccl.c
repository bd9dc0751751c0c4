/* The differential test's 8-rank HCCL workload (test_differential_hccl.py): one process, one thread per
 * device as msPTI's mspti_hccl_activity sample does, each rank running all-reduce, broadcast, all-gather
 * and reduce-scatter over the virtual HCCL on its own stream, with HCCL, COMMUNICATION and the API kinds
 * collected. Written against msPTI's public headers only and built against each CANN tree; records go to
 * stdout as JSON lines (differential_records.h). Each rank checks its results, so a run that printed
 * records also computed right. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "acl/acl.h"
#include "hccl/hccl.h"
#include "hccl/hccl_types.h"
#include "mspti/mspti.h"

#include "differential_records.h"

#define RANKS 8
#define COUNT 64 /* elements each rank contributes */

struct rank_ctx {
    int32_t device;
    HcclComm comm;
    int failed;
};

static void api_callback(void *userdata, msptiCallbackDomain domain, msptiCallbackId id,
                         const msptiCallbackData *data) {
    (void)userdata, (void)domain, (void)id, (void)data;
}

/* Returns nonzero (and says why) when a rank's result is wrong. */
static int expect(const struct rank_ctx *ctx, const char *what, const float *got, size_t n,
                  float (*want)(size_t, int)) {
    for (size_t i = 0; i < n; ++i) {
        if (got[i] != want(i, ctx->device)) {
            fprintf(stderr, "FAIL: rank %d %s[%zu] = %g, expected %g\n", ctx->device, what, i, (double)got[i],
                    (double)want(i, ctx->device));
            return 1;
        }
    }
    return 0;
}

/* Rank r contributes r + i at element i. */
static float sum_of_ranks(size_t i, int rank) {
    (void)rank;
    return (float)(RANKS * i + RANKS * (RANKS - 1) / 2);
}
static float from_root(size_t i, int rank) {
    (void)rank;
    return (float)(0 + i); /* root 0's contribution */
}
static float gathered(size_t i, int rank) {
    (void)rank;
    return (float)(i / COUNT + i % COUNT);
}
static float scattered_sum(size_t i, int rank) { return sum_of_ranks(rank * (COUNT / RANKS) + i, rank); }

#define ACL(expr) \
    do { \
        if ((expr) != 0) { \
            fprintf(stderr, "FAIL: rank %d: %s at line %d\n", ctx->device, #expr, __LINE__); \
            ctx->failed = 1; \
            return NULL; \
        } \
    } while (0)

static void *run_rank(void *arg) {
    struct rank_ctx *ctx = arg;
    ACL(aclrtSetDevice(ctx->device));
    aclrtStream stream = NULL;
    ACL(aclrtCreateStream(&stream));
    const size_t bytes = COUNT * sizeof(float);
    float host[COUNT * RANKS];
    for (size_t i = 0; i < COUNT; ++i) host[i] = (float)(ctx->device + i);
    void *send = NULL, *recv = NULL;
    ACL(aclrtMalloc(&send, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL(aclrtMalloc(&recv, bytes * RANKS, ACL_MEM_MALLOC_HUGE_FIRST));

    ACL(aclrtMemcpy(send, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL(HcclAllReduce(send, recv, COUNT, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, ctx->comm, stream));
    ACL(aclrtSynchronizeStream(stream));
    ACL(aclrtMemcpy(host, bytes, recv, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    ctx->failed |= expect(ctx, "all-reduce", host, COUNT, sum_of_ranks);

    for (size_t i = 0; i < COUNT; ++i) host[i] = (float)(ctx->device + i);
    ACL(aclrtMemcpy(send, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL(HcclBroadcast(send, COUNT, HCCL_DATA_TYPE_FP32, 0, ctx->comm, stream));
    ACL(aclrtSynchronizeStream(stream));
    ACL(aclrtMemcpy(host, bytes, send, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    ctx->failed |= expect(ctx, "broadcast", host, COUNT, from_root);

    for (size_t i = 0; i < COUNT; ++i) host[i] = (float)(ctx->device + i);
    ACL(aclrtMemcpy(send, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL(HcclAllGather(send, recv, COUNT, HCCL_DATA_TYPE_FP32, ctx->comm, stream));
    ACL(aclrtSynchronizeStream(stream));
    ACL(aclrtMemcpy(host, bytes * RANKS, recv, bytes * RANKS, ACL_MEMCPY_DEVICE_TO_HOST));
    ctx->failed |= expect(ctx, "all-gather", host, COUNT * RANKS, gathered);

    /* Each rank keeps COUNT / RANKS elements of the sum. */
    for (size_t i = 0; i < COUNT; ++i) host[i] = (float)(ctx->device + i);
    ACL(aclrtMemcpy(send, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL(HcclReduceScatter(send, recv, COUNT / RANKS, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, ctx->comm, stream));
    ACL(aclrtSynchronizeStream(stream));
    ACL(aclrtMemcpy(host, bytes / RANKS, recv, bytes / RANKS, ACL_MEMCPY_DEVICE_TO_HOST));
    ctx->failed |= expect(ctx, "reduce-scatter", host, COUNT / RANKS, scattered_sum);

    ACL(aclrtFree(send));
    ACL(aclrtFree(recv));
    ACL(aclrtDestroyStream(stream));
    ACL(aclrtResetDevice(ctx->device));
    return NULL;
}

static const msptiActivityKind kinds[] = {
    MSPTI_ACTIVITY_KIND_HCCL,    MSPTI_ACTIVITY_KIND_COMMUNICATION, MSPTI_ACTIVITY_KIND_API,
    MSPTI_ACTIVITY_KIND_ACL_API, MSPTI_ACTIVITY_KIND_RUNTIME_API,
};

int main(void) {
    msptiSubscriberHandle subscriber = NULL;
    CHECK(msptiSubscribe(&subscriber, api_callback, NULL));
    CHECK(msptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); ++i) CHECK(msptiActivityEnable(kinds[i]));

    CHECK(aclInit(NULL));
    int32_t devices[RANKS];
    HcclComm comms[RANKS];
    for (int32_t i = 0; i < RANKS; ++i) {
        devices[i] = i;
        CHECK(aclrtSetDevice(i));
    }
    CHECK(HcclCommInitAll(RANKS, devices, comms));
    struct rank_ctx ctx[RANKS];
    pthread_t threads[RANKS];
    for (int i = 0; i < RANKS; ++i) {
        ctx[i] = (struct rank_ctx){.device = i, .comm = comms[i], .failed = 0};
        CHECK(pthread_create(&threads[i], NULL, run_rank, &ctx[i]));
    }
    int failed = 0;
    for (int i = 0; i < RANKS; ++i) {
        CHECK(pthread_join(threads[i], NULL));
        failed |= ctx[i].failed;
    }
    for (int i = 0; i < RANKS; ++i) CHECK(HcclCommDestroy(comms[i]));
    for (int32_t i = 0; i < RANKS; ++i) CHECK(aclrtResetDevice(i));
    CHECK(aclFinalize());
    CHECK(msptiActivityFlushAll(1));
    CHECK(msptiUnsubscribe(subscriber));
    return failed;
}
