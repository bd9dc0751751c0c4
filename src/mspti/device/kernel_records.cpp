// KERNEL records. Enqueue is CANN's "task track" report: it takes a new correlation id (so one
// aclnn launch consumes two: the launch interposer's and this one; docs/compatibility.md, "Correlation ids") and parks the
// kernel's identity in a slot; execution turns the slot into a record with epoch times.
#include "core/activity_engine.h"
#include "core/clock.h"
#include "core/correlation.h"
#include "device/callbacks.h"
#include "device/slot_pool.h"

namespace mspti::device {
namespace {

struct PendingKernel {
    uint64_t correlationId;
    uint32_t deviceId;
    uint32_t streamId;
    const char *name;  // static storage in the runtime
    const char *type;
};

SlotPool<PendingKernel, 1u << 16> g_pending;

}  // namespace

uint64_t on_kernel_enqueue(void *, const vnpuKernelInfo *info) {
    if (info == nullptr || !ActivityEngine::enabled(MSPTI_ACTIVITY_KIND_KERNEL)) return 0;
    uint64_t id = correlation::generate();
    uint64_t tag = g_pending.claim();
    if (tag == 0) {
        ActivityEngine::instance().count_unstaged_drop(MSPTI_ACTIVITY_KIND_KERNEL);  // too many kernels in flight
        return 0;
    }
    PendingKernel *k = g_pending.get(tag);
    k->correlationId = id;
    k->deviceId = info->deviceId;
    k->streamId = info->streamId;
    k->name = info->name != nullptr ? info->name : "";
    k->type = info->type != nullptr ? info->type : "";
    return tag;
}

void on_kernel_executed(void *, uint64_t tag, uint64_t startNs, uint64_t endNs) {
    PendingKernel *k = g_pending.get(tag);
    if (k == nullptr) return;
    msptiActivityKernel r{};
    r.kind = MSPTI_ACTIVITY_KIND_KERNEL;
    r.start = clock::monotonic_to_epoch(startNs);
    r.end = clock::monotonic_to_epoch(endNs);
    r.ds.deviceId = k->deviceId;
    r.ds.streamId = k->streamId;
    r.correlationId = k->correlationId;
    r.type = k->type;
    r.name = k->name;
    g_pending.release(tag);
    ActivityEngine::record(r);
}

}  // namespace mspti::device
