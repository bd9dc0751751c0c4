// Facts about activity kinds: which are valid and the size (stride) of each kind's record.
#pragma once

#include <cstddef>
#include <cstdint>

#include "mspti/mspti_activity.h"
#include "mspti/mspti_ext.h"

namespace mspti {

constexpr int kKindCount = MSPTI_ACTIVITY_KIND_COUNT;  // 13: index 0 unused
constexpr size_t kMaxRecordSize = sizeof(msptiActivityCommunication);

constexpr bool is_valid_kind(int kind) { return kind >= MSPTI_ACTIVITY_KIND_MARKER && kind < kKindCount; }

// Bytes of one record of `kind`; 0 for an invalid kind (checked first: an int outside the
// enumeration is not a valid msptiActivityKind value, so it must not become one).
inline size_t record_size(int kind) {
    return is_valid_kind(kind) ? msptiExtRecordSize(static_cast<msptiActivityKind>(kind)) : 0;
}

// Kinds whose data comes only through the interposed runtime (LD_PRELOAD in msPTI's words).
constexpr bool needs_interposition(int kind) {
    return kind == MSPTI_ACTIVITY_KIND_HCCL || kind == MSPTI_ACTIVITY_KIND_MEMORY ||
           kind == MSPTI_ACTIVITY_KIND_MEMSET || kind == MSPTI_ACTIVITY_KIND_MEMCPY;
}

}  // namespace mspti
