// C records (mspti_activity.h) to the owned values of monitor_types.h (spec 3.4): ids that do
// not apply are -1, NULL strings become "", enum values are copied unchanged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "mspti/mspti_activity.h"
#include "mspti/mspti_ext.h"
#include "mspti/monitor_types.h"


namespace mspti::detail {

/** A device or stream id; the C ABI's "none" value (0xFFFFFFFF) becomes -1. */
inline int64_t id_or_none(uint32_t value) { return value == 0xFFFFFFFFu ? -1 : static_cast<int64_t>(value); }

/** An owned copy of a C string; NULL becomes "". */
inline std::string text(const char *s) { return s != nullptr ? std::string(s) : std::string(); }

/** Size of a record of `kind` in the C layout, or 0 for an unknown kind. */
inline size_t record_size(int kind) { return msptiExtRecordSize(static_cast<msptiActivityKind>(kind)); }

// The C++ enums copy the C values; conversion relies on it.
static_assert(static_cast<int>(MsptiResult::MSPTI_ERROR_INNER) == MSPTI_ERROR_INNER);
static_assert(static_cast<int>(MsptiResult::MSPTI_ERROR_WITHOUT_LD_PRELOAD) == MSPTI_ERROR_WITHOUT_LD_PRELOAD);
static_assert(static_cast<int>(MsptiActivityKind::MSPTI_ACTIVITY_KIND_RUNTIME_API) == MSPTI_ACTIVITY_KIND_RUNTIME_API);
static_assert(static_cast<int>(MsptiActivityKind::MSPTI_ACTIVITY_KIND_COUNT) == MSPTI_ACTIVITY_KIND_COUNT);
static_assert(static_cast<int>(MsptiActivityFlag::MSPTI_ACTIVITY_FLAG_MARKER_END_WITH_DEVICE) ==
              MSPTI_ACTIVITY_FLAG_MARKER_END_WITH_DEVICE);
static_assert(static_cast<int>(MsptiActivitySourceKind::MSPTI_ACTIVITY_SOURCE_KIND_DEVICE) ==
              MSPTI_ACTIVITY_SOURCE_KIND_DEVICE);
static_assert(static_cast<int>(MsptiCommunicationDataType::MSPTI_ACTIVITY_COMMUNICATION_HIF8) ==
              MSPTI_ACTIVITY_COMMUNICATION_HIF8);
static_assert(static_cast<int>(MsptiCommunicationDataType::MSPTI_ACTIVITY_COMMUNICATION_INVALID_TYPE) ==
              MSPTI_ACTIVITY_COMMUNICATION_INVALID_TYPE);

inline void convert(const msptiActivityKernel &r, KernelData &d) {
    d.kind = MsptiActivityKind::MSPTI_ACTIVITY_KIND_KERNEL;
    d.start = r.start;
    d.end = r.end;
    d.device_id = id_or_none(r.ds.deviceId);
    d.stream_id = id_or_none(r.ds.streamId);
    d.correlation_id = r.correlationId;
    d.type = text(r.type);
    d.name = text(r.name);
}

inline void convert(const msptiActivityHccl &r, HcclData &d) {
    d.kind = MsptiActivityKind::MSPTI_ACTIVITY_KIND_HCCL;
    d.start = r.start;
    d.end = r.end;
    d.device_id = id_or_none(r.ds.deviceId);
    d.stream_id = id_or_none(r.ds.streamId);
    d.bandwidth = r.bandWidth;
    d.name = text(r.name);
    d.comm_name = text(r.commName);
}

inline void convert(const msptiActivityCommunication &r, CommunicationData &d) {
    d.kind = MsptiActivityKind::MSPTI_ACTIVITY_KIND_COMMUNICATION;
    d.data_type = static_cast<MsptiCommunicationDataType>(r.dataType);
    d.count = r.count;
    d.device_id = id_or_none(r.ds.deviceId);
    d.stream_id = id_or_none(r.ds.streamId);
    d.start = r.start;
    d.end = r.end;
    d.alg_type = text(r.algType);
    d.name = text(r.name);
    d.comm_name = text(r.commName);
    d.correlation_id = r.correlationId;
}

inline void convert(const msptiActivityMarker &r, MarkerData &d) {
    d.kind = MsptiActivityKind::MSPTI_ACTIVITY_KIND_MARKER;
    d.flag = static_cast<MsptiActivityFlag>(r.flag);
    d.source_kind = static_cast<MsptiActivitySourceKind>(r.sourceKind);
    d.timestamp = r.timestamp;
    d.id = r.id;
    if (r.sourceKind == MSPTI_ACTIVITY_SOURCE_KIND_DEVICE) {
        d.object_id.process_id = -1;
        d.object_id.thread_id = -1;
        d.object_id.device_id = id_or_none(r.objectId.ds.deviceId);
        d.object_id.stream_id = id_or_none(r.objectId.ds.streamId);
    } else {
        d.object_id.process_id = static_cast<int64_t>(r.objectId.pt.processId);
        d.object_id.thread_id = static_cast<int64_t>(r.objectId.pt.threadId);
        d.object_id.device_id = -1;
        d.object_id.stream_id = -1;
    }
    d.name = text(r.name);
    d.domain = text(r.domain);
}

}  // namespace mspti::detail

