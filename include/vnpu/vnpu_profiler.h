/**
 * @file vnpu_profiler.h
 * @brief How the virtual NPU reports to a profiler (libmspti.so) what happens on its devices.
 *
 * The runtime knows nothing of msPTI. A profiler registers one table of callbacks with
 * vnpuProfilerRegister(); the runtime calls them as work is enqueued (on the host
 * thread that enqueues it) and as it executes (on the stream's worker thread).
 * Callbacks must be cheap and must not call back into the runtime's stream functions.
 *
 * All timestamps are CLOCK_MONOTONIC nanoseconds (vnpuNowNs()); the profiler maps them
 * to its own epoch clock.
 */
#ifndef VNPU_PROFILER_H
#define VNPU_PROFILER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Level of a host API span, as CANN's profiling levels. */
typedef enum {
    VNPU_API_LEVEL_ACL = 20000, /**< An ACL API (e.g. aclrtMalloc); msPTI kind ACL_API. */
    VNPU_API_LEVEL_NODE =
        10000, /**< An operator/graph-node launch (e.g. "aclnnAdd_AxpyAiCore_Axpy"); kinds API and NODE_API. */
    VNPU_API_LEVEL_HCCL = 5500, /**< An HCCL op's host span (e.g. "HcclAllReduce"). */
    VNPU_API_LEVEL_RUNTIME = 5000 /**< A runtime call (e.g. "rtKernelLaunch"); kind RUNTIME_API. */
} vnpuApiLevel;

/** @brief A kernel being enqueued on a stream. */
typedef struct {
    uint32_t deviceId; /**< Device of the stream. */
    uint32_t streamId; /**< Stream id, unique per device. */
    const char *name; /**< Kernel name; static storage. */
    const char *type; /**< "KERNEL_AIVEC", "KERNEL_AICORE", ...; static storage. */
} vnpuKernelInfo;

/** @brief A collective being enqueued on a stream (one per rank). */
typedef struct {
    uint32_t deviceId; /**< Device of the stream. */
    uint32_t streamId; /**< Stream id. */
    const char *opName; /**< Operation, e.g. "hcom_allReduce_"; static storage. */
    const char *commName; /**< Communicator name; valid until the communicator is destroyed. */
    const char *algType; /**< Algorithm, e.g. "RING"; static storage. */
    uint32_t dataType; /**< HcclDataType value. */
    uint64_t count; /**< Element count. */
    uint32_t rankSize; /**< Ranks in the communicator. */
} vnpuCollectiveInfo;

/**
 * @brief Callbacks a profiler registers. Any pointer may be NULL.
 *
 * `tag` values are chosen by the profiler (returned by the enqueue callbacks) and handed back
 * unchanged with the execution callbacks; 0 means "not tracked" and the runtime then skips
 * the execution callback.
 */
typedef struct {
    uint32_t structSize; /**< sizeof(vnpuProfiler), for versioning. */
    void *userdata; /**< Passed to every callback. */
    /** Host: an API span finished on the calling thread. */
    void (*onApi)(void *userdata, vnpuApiLevel level, const char *name, uint64_t beginNs, uint64_t endNs);
    /** Host: a kernel is enqueued (calling thread). Returns a tag. */
    uint64_t (*onKernelEnqueue)(void *userdata, const vnpuKernelInfo *info);
    /**
     * Device: the tagged kernel ran from startNs to endNs (stream worker thread). `info` is the
     * kernel's identity as it was enqueued (valid during the call), as a device's execution report
     * carries its task's stream: the profiler needs to keep nothing per kernel in flight.
     */
    void (*onKernelExecuted)(void *userdata, uint64_t tag, const vnpuKernelInfo *info, uint64_t startNs,
                             uint64_t endNs);
    /** Host: a collective is enqueued (calling thread). Returns a tag. */
    uint64_t (*onCollectiveEnqueue)(void *userdata, const vnpuCollectiveInfo *info);
    /** Device: the tagged collective ran from startNs to endNs (stream worker thread). */
    void (*onCollectiveExecuted)(void *userdata, uint64_t tag, uint64_t startNs, uint64_t endNs);
    /** Device: a trace task enqueued by vnpuStreamTrace() was reached (stream worker thread). */
    void (*onStreamTrace)(void *userdata, uint64_t markId, uint32_t flag, uint32_t deviceId, uint32_t streamId,
                          uint64_t timestampNs);
} vnpuProfiler;

/**
 * @brief Registers the profiler (NULL unregisters). The table is copied; userdata must outlive the process.
 * @return 0 on success, non-zero if structSize is too small.
 */
int vnpuProfilerRegister(const vnpuProfiler *profiler);

/**
 * @brief Enqueues a trace task on a stream (the analogue of CANN's aclrtProfTrace): when the stream reaches it,
 *        onStreamTrace(markId, flag, ...) fires with the time it was reached.
 * @param stream An aclrtStream, or NULL for the current device's default stream.
 * @param markId Marker id handed back to onStreamTrace.
 * @param flag Marker flag (an msptiActivityFlag value) handed back to onStreamTrace.
 * @return 0 (ACL_SUCCESS) or an ACL error code for a bad stream.
 */
int vnpuStreamTrace(void *stream, uint64_t markId, uint32_t flag);

/**
 * @brief Device and stream ids of a stream.
 * @param stream An aclrtStream, or NULL for the current device's default stream.
 * @param[out] deviceId Receives the device id.
 * @param[out] streamId Receives the stream id.
 * @return 0 (ACL_SUCCESS) or an ACL error code for a bad stream or NULL outputs.
 */
int vnpuStreamGetIds(void *stream, uint32_t *deviceId, uint32_t *streamId);

/** @brief The runtime's clock: CLOCK_MONOTONIC in nanoseconds. */
uint64_t vnpuNowNs(void);

#ifdef __cplusplus
}
#endif

#endif /* VNPU_PROFILER_H */
