#include "mstx/range_table.h"

#include <atomic>

namespace mspti::mstx {
namespace {

constexpr uint64_t kSlots = 1u << 16;
constexpr uint64_t kProbes = 64;
constexpr uint64_t kClaimed = ~0ull;  // slot taken, id not yet published

struct RangeSlot {
    std::atomic<uint64_t> id{0};
    std::atomic<void *> stream{nullptr};
};

RangeSlot g_slots[kSlots];

// Ids come from per-thread blocks of consecutive values: mapping them to consecutive slots keeps a
// thread's open ranges on few, thread-private cache lines.
uint64_t home(uint64_t id) { return id & (kSlots - 1); }

}  // namespace

bool range_open(uint64_t id, void *stream) {
    uint64_t start = home(id);
    for (uint64_t i = 0; i < kProbes; ++i) {
        RangeSlot &slot = g_slots[(start + i) & (kSlots - 1)];
        uint64_t expected = 0;
        if (slot.id.load(std::memory_order_relaxed) == 0 &&
            slot.id.compare_exchange_strong(expected, kClaimed, std::memory_order_acquire)) {
            slot.stream.store(stream, std::memory_order_relaxed);
            slot.id.store(id, std::memory_order_release);
            return true;
        }
    }
    return false;
}

bool range_close(uint64_t id, void **stream) {
    uint64_t start = home(id);
    for (uint64_t i = 0; i < kProbes; ++i) {
        RangeSlot &slot = g_slots[(start + i) & (kSlots - 1)];
        if (slot.id.load(std::memory_order_acquire) != id) continue;
        void *s = slot.stream.load(std::memory_order_relaxed);
        uint64_t expected = id;
        if (slot.id.compare_exchange_strong(expected, 0, std::memory_order_acq_rel)) {
            if (stream != nullptr) *stream = s;
            return true;
        }
        return false;  // another thread ended the same range concurrently
    }
    return false;
}

}  // namespace mspti::mstx
