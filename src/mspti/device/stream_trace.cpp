// Device trace tasks reached by a stream: an HCCL op's bracket, or an mstx marker's device half
// (sourceKind DEVICE, objectId.ds, name and domain "", the flag it was enqueued with).
#include "core/activity_engine.h"
#include "core/clock.h"
#include "device/callbacks.h"
#include "device/hccl_ops.h"

namespace mspti::device {

void on_stream_trace(void *, uint64_t markId, uint32_t flag, uint32_t deviceId, uint32_t streamId,
                     uint64_t timestampNs) {
    uint64_t epoch = clock::monotonic_to_epoch(timestampNs);
    if (hccl_on_trace(markId, flag, deviceId, streamId, epoch)) return;
    msptiActivityMarker r{};
    r.kind = MSPTI_ACTIVITY_KIND_MARKER;
    r.flag = static_cast<msptiActivityFlag>(flag);
    r.sourceKind = MSPTI_ACTIVITY_SOURCE_KIND_DEVICE;
    r.timestamp = epoch;
    r.id = markId;
    r.objectId.ds.deviceId = deviceId;
    r.objectId.ds.streamId = streamId;
    r.name = "";
    r.domain = "";
    ActivityEngine::record(r);
}

}  // namespace mspti::device
