// The per-kind record counts behind msptiExtActivityGetStats. Producers count what they stage and
// drop in their own rings (StagingRing); this keeps the rest: the counts of rings already freed,
// what the consumer delivered or dropped, and records that never reached a ring.
#pragma once

#include <atomic>
#include <cstdint>

#include "core/activity_kinds.h"
#include "core/thread_staging.h"
#include "mspti/mspti_ext.h"

namespace mspti {

class KindCounters {
public:
    // Records copied into client buffers (the consumer sums a drain pass, then adds it here).
    void add_delivered(int kind, uint64_t n) { delivered_[kind].fetch_add(n, std::memory_order_relaxed); }
    // A staged record the consumer could not place (no buffer): produced, then dropped.
    void add_consumer_dropped(int kind) { consumer_dropped_[kind].fetch_add(1, std::memory_order_relaxed); }
    // A record that never reached a staging ring (its thread is exiting): produced and dropped.
    void add_unstaged_drop(int kind) { unstaged_dropped_[kind].fetch_add(1, std::memory_order_relaxed); }

    // The counts of a drained ring about to be freed (consumer lock held).
    void absorb(const StagingRing &ring);
    // The counts of `kind`, with those of the live rings listed from `stagings` (consumer lock held).
    void read(int kind, const ThreadStaging *stagings, msptiExtActivityStats *out) const;
    // Moves up to `n` delivered records of `kind` to dropped (the client discarded them unread);
    // returns how many moved (consumer lock held, so read() sees both counts move together).
    uint64_t move_delivered_to_dropped(int kind, uint64_t n);
    // A forked child counts its own records only.
    void reset();

private:
    uint64_t freed_produced_[kKindCount] = {};  // of rings already freed (consumer lock)
    uint64_t freed_dropped_[kKindCount] = {};
    std::atomic<uint64_t> delivered_[kKindCount] = {};
    std::atomic<uint64_t> consumer_dropped_[kKindCount] = {};
    std::atomic<uint64_t> unstaged_dropped_[kKindCount] = {};
};

}  // namespace mspti
