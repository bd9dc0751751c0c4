// Element sizes and reductions of HCCL data types.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hccl/hccl_types.h"

namespace vnpu::hccl {

/// Bytes per element; 0 for an unknown type.
size_t data_type_size(HcclDataType type);
/// Whether `type` can be reduced (INT128 and the 8-bit float formats cannot).
bool reducible(HcclDataType type);
/// acc[i] = op(acc[i], in[i]) for `count` elements.
void reduce_into(void *acc, const void *in, uint64_t count, HcclDataType type, HcclReduceOp op);

}  // namespace vnpu::hccl
