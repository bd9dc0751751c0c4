// The dispatch of one activity buffer (on the delivery thread): which callbacks get which records,
// and the counts of what each got, errors, and what a stop or the exit made them drop.
#pragma once

#include <cstddef>
#include <cstdint>

#include "monitor/registry.h"

namespace mspti::detail {

/**
 * Delivers the `valid` bytes of records at `data`, the session's buffer number `seq`, to the
 * subscriptions of `reg`. Each run of records of one kind goes to the kind's batch subscriptions,
 * then its run subscriptions, then, record by record, its per-record ones. Records that no
 * subscription took while one dropped them are reported to libmspti as discarded.
 */
void dispatch_buffer(uint8_t *data, size_t valid, uint64_t seq, const Registry &reg);

}  // namespace mspti::detail
