// KERNEL records. Enqueue is CANN's "task track" report: it takes a new correlation id (so one
// aclnn launch consumes two: the launch interposer's and this one; docs/compatibility.md,
// "Correlation ids"), which is the tag the runtime hands back when the kernel has run, with the
// kernel's identity. Nothing is kept per kernel in flight.
#include "core/activity_engine.h"
#include "core/clock.h"
#include "core/correlation.h"
#include "device/callbacks.h"

namespace mspti::device {

uint64_t on_kernel_enqueue(void *, const vnpuKernelInfo *info) {
    if (info == nullptr || !ActivityEngine::enabled(MSPTI_ACTIVITY_KIND_KERNEL)) return 0;
    return correlation::generate();  // never 0
}

void on_kernel_executed(void *, uint64_t correlationId, const vnpuKernelInfo *info, uint64_t startNs, uint64_t endNs) {
    if (info == nullptr) return;
    msptiActivityKernel r{};
    r.kind = MSPTI_ACTIVITY_KIND_KERNEL;
    r.start = clock::monotonic_to_epoch(startNs);
    r.end = clock::monotonic_to_epoch(endNs);
    r.ds.deviceId = info->deviceId;
    r.ds.streamId = info->streamId;
    r.correlationId = correlationId;
    r.type = info->type != nullptr ? info->type : "";
    r.name = info->name != nullptr ? info->name : "";
    ActivityEngine::record(r);
}

}  // namespace mspti::device
