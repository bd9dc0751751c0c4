// What every rank of a collective must agree on, and the words for a disagreement or a timeout: the
// messages a failed collective leaves in its communicator and its stream (both transports).
#pragma once

#include <cstdint>
#include <string>

#include "hccl/hccl_types.h"
#include "hccl_arena.h"

namespace vnpu::hccl {

/// The API name of an OpDescriptor::op value ("HcclAllReduce", ...).
const char *op_api_name(uint32_t op);

/// "HCCL_E_PARA", "HCCL_E_TIMEOUT", ...
const char *result_name(HcclResult code);

/// "" if the `n` ranks' descriptors agree (operation, data type, reduction, root, count); otherwise what
/// differs, naming each value and the ranks that hold it, e.g.
/// "count differs: 1024 on rank 0, 4096 on rank 1".
std::string disagreement(const OpDescriptor *all, uint32_t n);

/// "rank 1" / "ranks 1, 3": for messages.
std::string rank_list(const uint32_t *ranks, uint32_t n);

}  // namespace vnpu::hccl
