// The vnpuProfiler callbacks, one file per record family. All run on runtime threads, take no
// lock and allocate nothing (a collective's pending details live in a fixed lock-free slot pool).
#pragma once

#include <cstdint>

#include "mspti/mspti_activity.h"
#include "vnpu/vnpu_profiler.h"

namespace mspti::device {

// api_records.cpp: ACL_API, NODE_API + API, RUNTIME_API.
void on_api(void *userdata, vnpuApiLevel level, const char *name, uint64_t beginNs, uint64_t endNs);

// Writes one API-struct record of `kind` (epoch times) if enabled; empty names are skipped.
void record_api(msptiActivityKind kind, const char *name, uint64_t beginEpoch, uint64_t endEpoch,
                uint64_t correlationId);

// kernel_records.cpp: KERNEL (enqueue takes the task-track correlation id, which is the tag).
uint64_t on_kernel_enqueue(void *userdata, const vnpuKernelInfo *info);
void on_kernel_executed(void *userdata, uint64_t tag, const vnpuKernelInfo *info, uint64_t startNs, uint64_t endNs);

// communication_records.cpp: COMMUNICATION, plus the API record of the collective's launch.
uint64_t on_collective_enqueue(void *userdata, const vnpuCollectiveInfo *info);
void on_collective_executed(void *userdata, uint64_t tag, uint64_t startNs, uint64_t endNs);

// An interposed HCCL call on this thread (hccl_hooks.cpp). The launch API record that the runtime's
// enqueue reports then spans the whole call, as CANN's node launch report does, and is written
// when the call returns; without interposition it is written at the enqueue, with no duration.
class CollectiveCallScope {
public:
    CollectiveCallScope();
    ~CollectiveCallScope();
    CollectiveCallScope(const CollectiveCallScope &) = delete;
    CollectiveCallScope &operator=(const CollectiveCallScope &) = delete;

private:
    struct State {
        bool active;
        uint64_t begin;
        const char *name;  // set by the enqueue: the launch to record
        uint64_t correlation_id;
    };
    State saved_;  // an enclosing call's (a re-entered interposer)
    friend uint64_t on_collective_enqueue(void *, const vnpuCollectiveInfo *);
    static thread_local State t_call_;
};

// stream_trace.cpp: device MARKER records, or the ends of an HCCL op (hccl_ops.cpp).
void on_stream_trace(void *userdata, uint64_t markId, uint32_t flag, uint32_t deviceId, uint32_t streamId,
                     uint64_t timestampNs);

}  // namespace mspti::device
