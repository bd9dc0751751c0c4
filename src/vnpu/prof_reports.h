// What the virtual NPU reports through the virtual CANN's profiling interfaces (libprofapi.so for host
// reports, libascend_hal.so for device channel records), from where CANN reports it: the runtime (APIs,
// task tracks), aclnn (node launches), HCCL (op info) and device open. Nothing is built unless a profiler
// registered callbacks and switched the report on, or started the channel.
#pragma once

#include <cstdint>

namespace vnpu::cann {

/// Level of a host API span, as CANN's profiling levels.
enum class ApiLevel : uint16_t {
    kAcl = 20000,  ///< an ACL API (e.g. aclrtMalloc): msPTI kind ACL_API
    kNode = 10000,  ///< an operator launch (e.g. "aclnnAdd_AxpyAiCore_Axpy"): kinds API and NODE_API
    kHccl = 5500,  ///< an HCCL op's host span (e.g. "HcclAllReduce")
    kRuntime = 5000,  ///< a runtime call (e.g. "rtKernelLaunch"): kind RUNTIME_API
};

/// A kernel being enqueued on a stream.
struct KernelInfo {
    uint32_t deviceId;
    uint32_t streamId;
    const char *name;  ///< static storage
    const char *type;  ///< "KERNEL_AIVEC", "KERNEL_AICORE", ...; static storage
};

/// A collective being enqueued on a stream (one per rank).
struct CollectiveInfo {
    uint32_t deviceId;
    uint32_t streamId;
    const char *opName;  ///< e.g. "hcom_allReduce_"; static storage
    const char *commName;  ///< valid until the communicator is destroyed
    const char *algType;  ///< e.g. "RING"; static storage
    uint32_t dataType;  ///< HcclDataType value
    uint64_t count;
    uint32_t rankSize;
};

/// A task as the device knows it; on is false when nothing is reported for it.
struct Task {
    bool on = false;
    uint32_t deviceId = 0;
    uint32_t streamId = 0;
    uint32_t taskId = 0;
};

/// Whether an API span of this level is reported (cheap: one atomic load).
bool api_wanted(ApiLevel level) noexcept;
/// Reports a finished API span (times in CLOCK_MONOTONIC ns).
void report_api(ApiLevel level, const char *name, uint64_t begin_ns, uint64_t end_ns) noexcept;

/// A kernel enqueued: gives it a task id and reports its task track where wanted.
Task kernel_enqueued(const KernelInfo &info) noexcept;
/// A collective enqueued: its task track and HCCL op info; the node launch follows with the HCCL API.
Task collective_enqueued(const CollectiveInfo &info) noexcept;
/// The device ran the task from start_ns to end_ns: its STARS begin/end records where the channel is on.
void task_executed(const Task &task, uint64_t start_ns, uint64_t end_ns) noexcept;

/// aclrtProfTrace's payload, decoded: 18 bytes, {uint64 indexId, uint64 modelId, uint16 tagId} packed.
struct TracePayload {
    uint64_t indexId = 0;
    uint64_t modelId = 0;
    uint16_t tagId = 0;
};
/// A trace task enqueued on a stream: decodes an 18-byte payload; on is false for other payloads or
/// when the TS-FW channel is off.
Task trace_enqueued(uint32_t device_id, uint32_t stream_id, const void *data, int32_t length,
                    TracePayload &payload) noexcept;
/// The stream reached the trace task: its TS-FW step-trace record where the channel is on.
void trace_reached(const Task &task, const TracePayload &payload, uint64_t now_ns) noexcept;

/// A device opened (first aclrtSetDevice) or closed (last aclrtResetDevice).
void device_state(int32_t device_id, bool open) noexcept;

}  // namespace vnpu::cann
