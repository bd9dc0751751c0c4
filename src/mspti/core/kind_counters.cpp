#include "core/kind_counters.h"

#include <algorithm>

namespace mspti {

void KindCounters::absorb(const StagingRing &ring) {
    for (int k = 1; k < kKindCount; ++k) {
        freed_produced_[k] += ring.produced(k);
        freed_dropped_[k] += ring.dropped(k);
    }
}

void KindCounters::read(int kind, const ThreadStaging *stagings, msptiExtActivityStats *out) const {
    const uint64_t unstaged = unstaged_dropped_[kind].load(std::memory_order_relaxed);
    uint64_t produced = freed_produced_[kind] + unstaged;
    uint64_t dropped = freed_dropped_[kind] + unstaged + consumer_dropped_[kind].load(std::memory_order_relaxed);
    for (const ThreadStaging *s = stagings; s != nullptr; s = s->next) {
        produced += s->ring.produced(kind);
        dropped += s->ring.dropped(kind);
    }
    out->produced = produced;
    out->dropped = dropped;
    out->delivered = delivered_[kind].load(std::memory_order_relaxed);
}

uint64_t KindCounters::move_delivered_to_dropped(int kind, uint64_t n) {
    uint64_t have = delivered_[kind].load(std::memory_order_relaxed);
    uint64_t moved = 0;
    do {
        moved = std::min(have, n);
    } while (!delivered_[kind].compare_exchange_weak(have, have - moved, std::memory_order_relaxed));
    consumer_dropped_[kind].fetch_add(moved, std::memory_order_relaxed);
    return moved;
}

void KindCounters::reset() {
    for (int k = 0; k < kKindCount; ++k) {
        freed_produced_[k] = 0;
        freed_dropped_[k] = 0;
        delivered_[k].store(0, std::memory_order_relaxed);
        consumer_dropped_[k].store(0, std::memory_order_relaxed);
        unstaged_dropped_[k].store(0, std::memory_order_relaxed);
    }
}

}  // namespace mspti
