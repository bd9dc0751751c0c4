// API-family records (docs/compatibility.md, "API, kernel and communication records"): one
// msptiActivityApi of `kind`, written on the calling thread if the kind is enabled.
#pragma once

#include <cstdint>

#include "mspti/mspti_activity.h"

namespace mspti::device {

/// Writes the record; `name` must live for the process (an interned name); empty names are skipped.
void write_api(msptiActivityKind kind, const char *name, uint64_t beginEpoch, uint64_t endEpoch,
               uint64_t correlationId);

}  // namespace mspti::device
