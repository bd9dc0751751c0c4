// Values the trace computes from a record rather than reads from one field; the record schema
// (schema/records.py, Derived) names them for the slice arguments and the SQLite columns.
#pragma once

#include <cstdint>

#include "record.h"

namespace mspti_trace {

// Bytes per ns (GB/s); 0 for an empty interval.
inline double bandwidth(uint64_t bytes, uint64_t start, uint64_t end) {
    return end > start ? static_cast<double>(bytes) / static_cast<double>(end - start) : 0.0;
}

// An HCCL record's bytes: its bandwidth times its duration, rounded.
inline uint64_t hccl_bytes(const Record &r) {
    double bytes = r.u.hccl.bandWidth * static_cast<double>(r.end - r.start);
    return bytes > 0 ? static_cast<uint64_t>(bytes + 0.5) : 0;
}

// A COMMUNICATION record's bytes: its count times the size of its element type.
inline uint64_t comm_bytes(const Record &r) { return r.u.comm.count * comm_type_size(r.u.comm.dataType); }

// A memcpy slice's name, by direction.
inline const char *memcpy_name(msptiActivityMemcpyKind k) {
    switch (k) {
    case MSPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "Memcpy HtoH";
    case MSPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "Memcpy HtoD";
    case MSPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "Memcpy DtoH";
    case MSPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "Memcpy DtoD";
    case MSPTI_ACTIVITY_MEMCPY_KIND_DEFAULT: return "Memcpy Default";
    default: return "Memcpy Unknown";
    }
}

}  // namespace mspti_trace
