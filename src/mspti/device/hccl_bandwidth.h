// HCCL bandwidth as msPTI computes it (docs/compatibility.md, "HCCL records and bandwidth"): bytes moved by an op, divided by its
// device duration in ns, i.e. GB/s with 1 GB = 1e9 B. "No value" is reported as 0.
#pragma once

#include <cstdint>

namespace mspti::device {

// Bytes of one element of an HcclDataType (INT8..INT128); 0 for any other type (HIF8, FP8...).
uint64_t hccl_type_size(int32_t dataType);

// bytes / (end - start); 0 if bytes is 0 or end <= start.
double hccl_bandwidth(uint64_t bytes, uint64_t startNs, uint64_t endNs);

}  // namespace mspti::device
