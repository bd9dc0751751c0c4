#include "mstx/range_table.h"

#include <atomic>

namespace mspti::mstx {
namespace {

constexpr uint64_t kSlots = 1u << 16;
constexpr uint64_t kProbes = 64;
constexpr uint64_t kClaimed = ~0ull;  // slot taken, id not yet published
constexpr int kEvictionRounds = 8;    // then give up (only under heavy contention on one window)

struct RangeSlot {
    std::atomic<uint64_t> id{0};
    std::atomic<void *> stream{nullptr};
};

RangeSlot g_slots[kSlots];
std::atomic<uint64_t> g_evicted{0};

// Ids come from per-thread blocks of consecutive values: mapping them to consecutive slots keeps a
// thread's open ranges on few, thread-private cache lines.
uint64_t home(uint64_t id) { return id & (kSlots - 1); }

RangeSlot &probe(uint64_t id, uint64_t i) { return g_slots[(home(id) + i) & (kSlots - 1)]; }

void publish(RangeSlot &slot, uint64_t id, void *stream) {
    slot.stream.store(stream, std::memory_order_relaxed);
    slot.id.store(id, std::memory_order_release);
}

bool claim_free(uint64_t id, void *stream) {
    for (uint64_t i = 0; i < kProbes; ++i) {
        RangeSlot &slot = probe(id, i);
        uint64_t expected = 0;
        if (slot.id.load(std::memory_order_relaxed) == 0 &&
            slot.id.compare_exchange_strong(expected, kClaimed, std::memory_order_acquire)) {
            publish(slot, id, stream);
            return true;
        }
    }
    return false;
}

// The window is full: take the slot of its oldest range (smallest id: ids grow over time).
// A concurrent end of that range wins or loses the same compare-exchange, so a range is
// either ended or evicted, never both.
bool claim_oldest(uint64_t id, void *stream) {
    RangeSlot *victim = nullptr;
    uint64_t victim_id = kClaimed;
    for (uint64_t i = 0; i < kProbes; ++i) {
        RangeSlot &slot = probe(id, i);
        uint64_t current = slot.id.load(std::memory_order_relaxed);
        if (current == 0) return claim_free(id, stream);  // freed meanwhile
        if (current < victim_id) {
            victim = &slot;
            victim_id = current;
        }
    }
    if (victim == nullptr) return false;  // every slot is being claimed right now
    if (!victim->id.compare_exchange_strong(victim_id, kClaimed, std::memory_order_acq_rel)) return false;
    g_evicted.fetch_add(1, std::memory_order_relaxed);
    publish(*victim, id, stream);
    return true;
}

}  // namespace

bool range_open(uint64_t id, void *stream) {
    if (id == 0 || id == kClaimed) return false;
    if (claim_free(id, stream)) return true;
    for (int round = 0; round < kEvictionRounds; ++round)
        if (claim_oldest(id, stream)) return true;
    return false;
}

bool range_close(uint64_t id, void **stream) {
    if (id == 0 || id == kClaimed) return false;  // 0 would match every free slot
    for (uint64_t i = 0; i < kProbes; ++i) {
        RangeSlot &slot = probe(id, i);
        if (slot.id.load(std::memory_order_acquire) != id) continue;
        void *s = slot.stream.load(std::memory_order_relaxed);
        uint64_t expected = id;
        if (slot.id.compare_exchange_strong(expected, 0, std::memory_order_acq_rel)) {
            if (stream != nullptr) *stream = s;
            return true;
        }
        return false;  // another thread ended (or evicted) the same range concurrently
    }
    return false;
}

RangeTableStats range_stats() {
    RangeTableStats stats{0, g_evicted.load(std::memory_order_relaxed), kSlots};
    for (const RangeSlot &slot : g_slots) {
        uint64_t id = slot.id.load(std::memory_order_relaxed);
        stats.open += id != 0 && id != kClaimed;
    }
    return stats;
}

}  // namespace mspti::mstx
