// MEMORY, MEMCPY and MEMSET records of the interposed memory functions (docs/compatibility.md, "Interposed functions"):
// host time around the real call, the thread's latest correlation id, the current device.
#pragma once

#include <cstdint>

#include "interpose/acl_abi.h"
#include "mspti/mspti_activity.h"

namespace mspti::interpose {

struct HostSpan {
    uint64_t start;
    uint64_t end;
};

void record_memory(msptiActivityMemoryOperationType op, uint64_t address, uint64_t bytes, HostSpan span,
                   uint64_t correlationId);
void record_memcpy(aclrtMemcpyKind kind, uint64_t bytes, HostSpan span, bool async, aclrtStream stream,
                   uint64_t correlationId);
void record_memset(int32_t value, uint64_t bytes, HostSpan span, bool async, aclrtStream stream,
                   uint64_t correlationId);

// ACL's memcpy kind as msPTI's (H2H, H2D, D2H, D2D, DEFAULT, buffered H2D -> H2D; others UNKNOWN).
msptiActivityMemcpyKind memcpy_kind(aclrtMemcpyKind kind);

}  // namespace mspti::interpose
