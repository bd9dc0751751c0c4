/* The workload of bench/upstream/side_by_side.py, built against one CANN tree (ours, or the one with
 * msPTI's libmspti) from msPTI's public headers only, so that the same source measures either library:
 *   side_by_side_workload kernel collect|baseline BATCHES
 *       BATCHES x 256 aclnnAdd kernels of 8 floats, the stream synchronised per batch, then
 *       msptiActivityFlushAll; collect: subscribed, KERNEL enabled, records drained into recycled
 *       8 MiB buffers and walked with msptiActivityGetNextRecord; baseline: the library loaded, nothing
 *       enabled.
 *   side_by_side_workload mark on|off COUNT
 *       COUNT mstxMarkA("step", NULL) calls; on: subscribed, MARKER enabled, drained as above.
 * Prints one JSON object: the timed region's wall and CPU time (KERNEL: the process's, every thread;
 * markers: the marking thread's), the work done
 * and the records read. With collection on, the KERNEL region ends when the last record was read
 * (flush_until; loop_wall_ns: the launches and synchronisations alone); the marker region ends with the
 * last mark, and its records are then flushed. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "mspti/mspti.h"
#include "mstx/ms_tools_ext.h"

#define BATCH 256
#define BUFFER_SIZE (8u << 20)
#define POOL 64

#define CHECK(expr) \
    do { \
        long long rc_ = (long long)(expr); \
        if (rc_ != 0) { \
            fprintf(stderr, "FAIL: %s returned %lld at line %d\n", #expr, rc_, __LINE__); \
            exit(1); \
        } \
    } while (0)

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t delivered = PTHREAD_COND_INITIALIZER; /* records grew */
static uint8_t *pool[POOL];
static int pooled;
static uint64_t records; /* under pool_lock */
static int collecting; /* subscribed, a kind enabled */

static void request(uint8_t **buffer, size_t *size, size_t *max_records) {
    pthread_mutex_lock(&pool_lock);
    *buffer = pooled > 0 ? pool[--pooled] : aligned_alloc(8, BUFFER_SIZE);
    pthread_mutex_unlock(&pool_lock);
    *size = *buffer == NULL ? 0 : BUFFER_SIZE;
    *max_records = 0;
}

static void complete(uint8_t *buffer, size_t size, size_t valid_size) {
    (void)size;
    msptiActivity *record = NULL;
    uint64_t n = 0;
    while (valid_size > 0 && msptiActivityGetNextRecord(buffer, valid_size, &record) == MSPTI_SUCCESS) ++n;
    pthread_mutex_lock(&pool_lock);
    records += n;
    pthread_cond_broadcast(&delivered);
    if (pooled < POOL)
        pool[pooled++] = buffer;
    else
        free(buffer);
    pthread_mutex_unlock(&pool_lock);
}

static void on_api(void *userdata, msptiCallbackDomain domain, msptiCallbackId id, const msptiCallbackData *data) {
    (void)userdata, (void)domain, (void)id, (void)data;
}

static double now(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Flushes until `expected` records were read, or 10 s passed: msPTI's flush returns once the device
 * channels are read, before their records are parsed and delivered, so the timed region ends when the
 * last record reached the client, in either library. Between flushes it waits for records (at most
 * 100 ms), so that few flushes are counted. */
static void flush_until(uint64_t expected) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 10;
    for (;;) {
        CHECK(msptiActivityFlushAll(1));
        struct timespec wait;
        clock_gettime(CLOCK_REALTIME, &wait);
        wait.tv_nsec += 100000000;
        if (wait.tv_nsec >= 1000000000) wait.tv_sec += 1, wait.tv_nsec -= 1000000000;
        pthread_mutex_lock(&pool_lock);
        while (records < expected && pthread_cond_timedwait(&delivered, &pool_lock, &wait) == 0) {}
        int done = records >= expected;
        pthread_mutex_unlock(&pool_lock);
        if (done || wait.tv_sec > deadline.tv_sec) return;
    }
}

static void kernels(long batches) {
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtStream stream = NULL;
    CHECK(aclrtCreateStream(&stream));
    int64_t shape[1] = {8}, strides[1] = {1};
    void *a = NULL, *b = NULL, *c = NULL;
    CHECK(aclrtMalloc(&a, 8 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&b, 8 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&c, 8 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
    aclTensor *ta = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, a);
    aclTensor *tb = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, b);
    aclTensor *tc = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, c);
    float one = 1.0f;
    aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
    double wall = now(CLOCK_MONOTONIC), cpu = now(CLOCK_PROCESS_CPUTIME_ID);
    for (long i = 0; i < batches; ++i) {
        for (int k = 0; k < BATCH; ++k) {
            uint64_t workspace = 0;
            aclOpExecutor *executor = NULL;
            CHECK(aclnnAddGetWorkspaceSize(ta, tb, alpha, tc, &workspace, &executor));
            CHECK(aclnnAdd(NULL, 0, executor, stream));
        }
        CHECK(aclrtSynchronizeStream(stream));
    }
    double loop = now(CLOCK_MONOTONIC) - wall;
    if (collecting) flush_until(batches * BATCH);
    wall = now(CLOCK_MONOTONIC) - wall;
    cpu = now(CLOCK_PROCESS_CPUTIME_ID) - cpu;
    pthread_mutex_lock(&pool_lock);
    printf("{\"loop_wall_ns\": %.0f, \"wall_ns\": %.0f, \"cpu_ns\": %.0f, \"work\": %ld, \"records\": %llu}\n", loop,
           wall, cpu, batches * BATCH, (unsigned long long)records);
    pthread_mutex_unlock(&pool_lock);
    aclDestroyTensor(ta);
    aclDestroyTensor(tb);
    aclDestroyTensor(tc);
    aclDestroyScalar(alpha);
    CHECK(aclrtFree(a));
    CHECK(aclrtFree(b));
    CHECK(aclrtFree(c));
    CHECK(aclrtDestroyStream(stream));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
}

/* The marking thread's own CPU time: a busy run queue inflates wall time, not this. */
static void marks(long count) {
    double wall = now(CLOCK_MONOTONIC), cpu = now(CLOCK_THREAD_CPUTIME_ID);
    for (long i = 0; i < count; ++i) mstxMarkA("step", NULL);
    wall = now(CLOCK_MONOTONIC) - wall;
    cpu = now(CLOCK_THREAD_CPUTIME_ID) - cpu;
    if (collecting) flush_until(count);
    pthread_mutex_lock(&pool_lock);
    printf("{\"wall_ns\": %.0f, \"cpu_ns\": %.0f, \"work\": %ld, \"records\": %llu}\n", wall, cpu, count,
           (unsigned long long)records);
    pthread_mutex_unlock(&pool_lock);
}

int main(int argc, char **argv) {
    if (argc != 4 || (strcmp(argv[1], "kernel") != 0 && strcmp(argv[1], "mark") != 0) || atol(argv[3]) <= 0) {
        fprintf(stderr, "usage: %s kernel collect|baseline BATCHES | mark on|off COUNT (got %d arguments)\n", argv[0],
                argc - 1);
        return 2;
    }
    int kernel = strcmp(argv[1], "kernel") == 0;
    int on = collecting = strcmp(argv[2], kernel ? "collect" : "on") == 0;
    msptiSubscriberHandle subscriber = NULL;
    if (on) {
        CHECK(msptiSubscribe(&subscriber, on_api, NULL));
        CHECK(msptiActivityRegisterCallbacks(request, complete));
        CHECK(msptiActivityEnable(kernel ? MSPTI_ACTIVITY_KIND_KERNEL : MSPTI_ACTIVITY_KIND_MARKER));
    }
    if (kernel)
        kernels(atol(argv[3]));
    else
        marks(atol(argv[3]));
    if (on) CHECK(msptiUnsubscribe(subscriber));
    return 0;
}
