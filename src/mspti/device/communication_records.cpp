// COMMUNICATION records. Enqueue stands for CANN's HCCL node launch: it takes a new correlation
// id and writes the launch's API record (same name and id, so consumers can join them, as the
// msPTI system tests do), spanning the interposed HCCL call when there is one; execution writes
// the record with the collective's device span.
#include "core/activity_engine.h"
#include "core/clock.h"
#include "core/correlation.h"
#include "core/string_table.h"
#include "device/callbacks.h"
#include "device/slot_pool.h"

namespace mspti::device {

namespace {

struct PendingCollective {
    uint64_t correlationId;
    uint64_t count;
    uint32_t deviceId;
    uint32_t streamId;
    uint32_t dataType;
    const char *opName;
    const char *commName;  // interned: the runtime's copy dies with the communicator
    const char *algType;
};

SlotPool<PendingCollective, 1u << 12> g_pending;

msptiCommunicationDataType data_type(uint32_t hccl) {
    // HcclDataType and msptiCommunicationDataType share their numbering (13 is unused in both).
    if (hccl <= 12 || (hccl >= 14 && hccl <= 17)) return static_cast<msptiCommunicationDataType>(hccl);
    return MSPTI_ACTIVITY_COMMUNICATION_INVALID_TYPE;
}

const char *or_empty(const char *s) { return s != nullptr ? s : ""; }

}  // namespace

uint64_t on_collective_enqueue(void *, const vnpuCollectiveInfo *info) {
    ActivityEngine &engine = ActivityEngine::instance();
    if (info == nullptr || !engine.enabled(MSPTI_ACTIVITY_KIND_COMMUNICATION)) return 0;
    uint64_t id = correlation::generate();
    CollectiveCallScope::State &call = CollectiveCallScope::t_call_;
    if (call.active) {
        call.name = info->opName;  // written when the interposed call returns
        call.correlation_id = id;
    } else {
        uint64_t now = clock::now_ns();
        record_api(MSPTI_ACTIVITY_KIND_API, info->opName, now, now, id);
    }
    uint64_t tag = g_pending.claim();
    if (tag == 0) {
        engine.count_unstaged_drop(MSPTI_ACTIVITY_KIND_COMMUNICATION);
        return 0;
    }
    PendingCollective *c = g_pending.get(tag);
    c->correlationId = id;
    c->count = info->count;
    c->deviceId = info->deviceId;
    c->streamId = info->streamId;
    c->dataType = info->dataType;
    c->opName = or_empty(info->opName);
    c->commName = intern(or_empty(info->commName));  // once per collective, not per kernel
    c->algType = or_empty(info->algType);
    return tag;
}

thread_local CollectiveCallScope::State CollectiveCallScope::t_call_{};

CollectiveCallScope::CollectiveCallScope() : saved_(t_call_) {
    t_call_ = State{ActivityEngine::instance().enabled(MSPTI_ACTIVITY_KIND_COMMUNICATION), 0, nullptr, 0};
    if (t_call_.active) t_call_.begin = clock::now_ns();
}

CollectiveCallScope::~CollectiveCallScope() {
    if (t_call_.name != nullptr)
        record_api(MSPTI_ACTIVITY_KIND_API, t_call_.name, t_call_.begin, clock::now_ns(), t_call_.correlation_id);
    t_call_ = saved_;
}

void on_collective_executed(void *, uint64_t tag, uint64_t startNs, uint64_t endNs) {
    PendingCollective *c = g_pending.get(tag);
    if (c == nullptr) return;
    msptiActivityCommunication r{};
    r.kind = MSPTI_ACTIVITY_KIND_COMMUNICATION;
    r.dataType = data_type(c->dataType);
    r.count = c->count;
    r.ds.deviceId = c->deviceId;
    r.ds.streamId = c->streamId;
    r.start = clock::monotonic_to_epoch(startNs);
    r.end = clock::monotonic_to_epoch(endNs);
    r.algType = c->algType;
    r.name = c->opName;
    r.commName = c->commName;
    r.correlationId = c->correlationId;
    g_pending.release(tag);
    ActivityEngine::record(r);
}

}  // namespace mspti::device
