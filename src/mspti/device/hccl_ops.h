// HCCL records (docs/compatibility.md, "HCCL records and bandwidth"): an interposed Hccl* op brackets itself with two internal device
// markers; when the stream reaches both, the pair becomes one msptiActivityHccl (never MARKER
// records). Ops in flight live in a fixed lock-free table keyed by marker id.
#pragma once

#include <cstdint>

#include "mspti/mspti_activity.h"

namespace mspti::device {

// Starts tracking an op on `stream`: takes a marker id and enqueues START_WITH_DEVICE. Returns
// the id for hccl_op_end, or 0 if the op cannot be tracked (no runtime, table full).
// `bytes` = 0 means "no bandwidth value".
uint64_t hccl_op_begin(const char *name, const char *commName, uint64_t bytes, void *stream);

// Enqueues END_WITH_DEVICE for an op started by hccl_op_begin. `failed`: the real op was
// rejected (nothing ran between the markers), so the pair gives no record.
void hccl_op_end(uint64_t markId, void *stream, bool failed);

// Called for every device trace: true if `markId` is an HCCL op's (consumed here). At an op's end
// it fills `out` and sets `ready`: the caller stages the record with the other device records, so
// that they all leave in channel order whichever thread parsed them.
bool hccl_on_trace(uint64_t markId, uint32_t flag, uint32_t deviceId, uint32_t streamId, uint64_t epochNs,
                   msptiActivityHccl &out, bool &ready);

}  // namespace mspti::device
