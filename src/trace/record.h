// One activity record copied out of an msPTI buffer, with the times every stage sorts by.
#pragma once

#include <cstdint>
#include <cstring>

#include "mspti/mspti_activity.h"
#include "mspti/mspti_ext.h"

namespace mspti_trace {

struct Record {
    // Record r{} zeroes all; Record(kUnset) leaves it unwritten, for the copies assign() fills.
    enum Unset { kUnset };
    Record() = default;
    explicit Record(Unset) {}

    union {
        msptiActivity any;
        msptiActivityApi api;
        msptiActivityKernel kernel;
        msptiActivityHccl hccl;
        msptiActivityMemory memory;
        msptiActivityMemset memset;
        msptiActivityMemcpy memcpy;
        msptiActivityMarker marker;
        msptiActivityCommunication comm;
        unsigned char raw[96];
    } u;
    uint64_t start;  // start, or a marker's timestamp
    uint64_t end;  // end, or a marker's timestamp
    uint64_t seq;  // arrival order, to keep sorts stable

    msptiActivityKind kind() const { return u.any.kind; }

    // Copies a record from a buffer; false for a kind this tool does not know.
    bool assign(const msptiActivity *rec, uint64_t sequence) {
        size_t size = msptiExtRecordSize(rec->kind);
        if (size == 0 || size > sizeof(u.raw)) return false;
        std::memcpy(u.raw, rec, size);
        seq = sequence;
        switch (rec->kind) {
        case MSPTI_ACTIVITY_KIND_MARKER: start = end = u.marker.timestamp; break;
        case MSPTI_ACTIVITY_KIND_KERNEL: start = u.kernel.start, end = u.kernel.end; break;
        case MSPTI_ACTIVITY_KIND_API:
        case MSPTI_ACTIVITY_KIND_ACL_API:
        case MSPTI_ACTIVITY_KIND_NODE_API:
        case MSPTI_ACTIVITY_KIND_RUNTIME_API: start = u.api.start, end = u.api.end; break;
        case MSPTI_ACTIVITY_KIND_HCCL: start = u.hccl.start, end = u.hccl.end; break;
        case MSPTI_ACTIVITY_KIND_MEMORY: start = u.memory.start, end = u.memory.end; break;
        case MSPTI_ACTIVITY_KIND_MEMSET: start = u.memset.start, end = u.memset.end; break;
        case MSPTI_ACTIVITY_KIND_MEMCPY: start = u.memcpy.start, end = u.memcpy.end; break;
        case MSPTI_ACTIVITY_KIND_COMMUNICATION: start = u.comm.start, end = u.comm.end; break;
        default: return false;
        }
        if (end < start) end = start;
        return true;
    }
};

// Lower-case kind names used in every output format ("kernel", "acl_api", ...); "" for others.
const char *kind_name(msptiActivityKind kind);

// Bytes of one element of a COMMUNICATION data type; 0 when unknown.
uint64_t comm_type_size(uint32_t dataType);

}  // namespace mspti_trace
