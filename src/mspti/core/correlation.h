// Correlation ids (one process-wide counter from 1) and the per-thread stacks of external
// correlation ids that tie them to the client's own ids.
#pragma once

#include <cstdint>

#include "mspti/mspti_activity.h"

namespace mspti::correlation {

// A new correlation id. It becomes the calling thread's latest; while EXTERNAL_CORRELATION is
// enabled, one record per non-empty external stack of this thread ties it to the stack's top.
uint64_t generate();

// The calling thread's latest correlation id (0 if it has none).
uint64_t latest();

constexpr bool is_valid_external_kind(int kind) {
    return kind >= MSPTI_EXTERNAL_CORRELATION_KIND_UNKNOWN && kind < MSPTI_EXTERNAL_CORRELATION_KIND_SIZE;
}

// The kind must be valid (checked by the caller).
void push(msptiExternalCorrelationKind kind, uint64_t id);
// False if the thread's stack for `kind` is empty.
bool pop(msptiExternalCorrelationKind kind, uint64_t *id);

}  // namespace mspti::correlation
