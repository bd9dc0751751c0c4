#include "core/staging_ring.h"

#include <cstring>

namespace mspti {

StagingRing::StagingRing(uint32_t capacity)
    : limit_(capacity),
      capacity_(capacity),
      mask_(capacity - 1),
      nudge_mask_(capacity / 4 - 1),
      slots_(new StagingSlot[capacity]) {}

StagingRing::~StagingRing() { delete[] slots_; }

void StagingRing::restart_after_fork() {
    uint64_t quarter = nudge_mask_ + 1;
    uint64_t index = (head_.load(std::memory_order_relaxed) / quarter + 1) * quarter - 1;
    head_.store(index, std::memory_order_relaxed);
    tail_.store(index, std::memory_order_relaxed);
    limit_ = index + capacity_;
    for (int k = 0; k < kKindCount; ++k) {
        dropped_[k].store(0, std::memory_order_relaxed);
        taken_[k] = 0;
    }
}

uint64_t StagingRing::produced(int kind) const {
    uint64_t n = taken_[kind] + dropped(kind);
    // The slots in [tail, head) are committed: their kinds can be read (the producer writes past head only).
    const uint64_t head = read_head();
    for (uint64_t i = read_tail(); i != head; ++i) {
        int k;
        std::memcpy(&k, slot(i), sizeof(k));
        n += k == kind;
    }
    return n;
}

}  // namespace mspti
