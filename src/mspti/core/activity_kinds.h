// Facts about activity kinds: which are valid and the size (stride) of each kind's record.
#pragma once

#include <cstddef>
#include <cstdint>

#include "mspti/mspti_activity.h"

namespace mspti {

constexpr int kKindCount = MSPTI_ACTIVITY_KIND_COUNT;  // 13: index 0 unused
constexpr size_t kMaxRecordSize = sizeof(msptiActivityCommunication);

constexpr bool is_valid_kind(int kind) { return kind >= MSPTI_ACTIVITY_KIND_MARKER && kind < kKindCount; }

// Bytes of one record of `kind`; 0 for an invalid kind.
constexpr size_t record_size(int kind) {
    switch (kind) {
    case MSPTI_ACTIVITY_KIND_MARKER: return sizeof(msptiActivityMarker);
    case MSPTI_ACTIVITY_KIND_KERNEL: return sizeof(msptiActivityKernel);
    case MSPTI_ACTIVITY_KIND_API:
    case MSPTI_ACTIVITY_KIND_ACL_API:
    case MSPTI_ACTIVITY_KIND_NODE_API:
    case MSPTI_ACTIVITY_KIND_RUNTIME_API: return sizeof(msptiActivityApi);
    case MSPTI_ACTIVITY_KIND_HCCL: return sizeof(msptiActivityHccl);
    case MSPTI_ACTIVITY_KIND_MEMORY: return sizeof(msptiActivityMemory);
    case MSPTI_ACTIVITY_KIND_MEMSET: return sizeof(msptiActivityMemset);
    case MSPTI_ACTIVITY_KIND_MEMCPY: return sizeof(msptiActivityMemcpy);
    case MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: return sizeof(msptiActivityExternalCorrelation);
    case MSPTI_ACTIVITY_KIND_COMMUNICATION: return sizeof(msptiActivityCommunication);
    default: return 0;
    }
}

// Kinds whose data comes only through the interposed runtime (LD_PRELOAD in msPTI's words).
constexpr bool needs_interposition(int kind) {
    return kind == MSPTI_ACTIVITY_KIND_HCCL || kind == MSPTI_ACTIVITY_KIND_MEMORY ||
           kind == MSPTI_ACTIVITY_KIND_MEMSET || kind == MSPTI_ACTIVITY_KIND_MEMCPY;
}

}  // namespace mspti
