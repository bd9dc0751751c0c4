// C records (mspti_activity.h) to the owned values of monitor_types.h (docs/compatibility.md, "Python package"): ids that do
// not apply are -1, NULL strings become "", enum values are copied unchanged. The conversion of
// each record, and the checks that the schema's layouts are msPTI's, are generated from
// schema/records.py (monitor_schema.h); the helpers they use are here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "mspti/mspti_activity.h"
#include "mspti/mspti_ext.h"
#include "mspti/monitor.h"
#include "mspti/monitor_types.h"


namespace mspti::detail {

/** A device or stream id; the C ABI's "none" value (0xFFFFFFFF) becomes -1. */
inline int64_t id_or_none(uint32_t value) { return value == 0xFFFFFFFFu ? -1 : static_cast<int64_t>(value); }

/** An owned copy of a C string; NULL becomes "". */
inline std::string text(const char *s) { return s != nullptr ? std::string(s) : std::string(); }

/** Size of a record of `kind` in the C layout, or 0 for an unknown kind. */
inline size_t record_size(int kind) { return msptiExtRecordSize(static_cast<msptiActivityKind>(kind)); }

/** A marker's owner: process/thread for host records, device/stream for device records. */
inline MsptiObjectId object_id(const msptiActivityMarker &r) {
    MsptiObjectId o;
    if (r.sourceKind == MSPTI_ACTIVITY_SOURCE_KIND_DEVICE) {
        o.device_id = id_or_none(r.objectId.ds.deviceId);
        o.stream_id = id_or_none(r.objectId.ds.streamId);
    } else {
        o.process_id = static_cast<int64_t>(r.objectId.pt.processId);
        o.thread_id = static_cast<int64_t>(r.objectId.pt.threadId);
    }
    return o;
}

}  // namespace mspti::detail

#include "monitor_schema.h"
