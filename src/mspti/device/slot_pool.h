// A fixed pool of slots for work between its enqueue (host thread) and its execution (stream
// worker): claim returns a non-zero tag, release frees it. A SlotTable whose keys are the tags;
// each thread starts claiming at its own cursor so threads rarely touch the same slots.
#pragma once

#include <atomic>
#include <cstdint>

#include "common/slot_table.h"

namespace mspti::device {

template <typename T, uint32_t N>
class SlotPool {
    using Table = SlotTable<T, N>;

public:
    // A free slot's tag (index + 1), or 0 when the pool is full around the cursor.
    uint64_t claim() {
        static thread_local uint32_t cursor = next_cursor_.fetch_add(N / 64, std::memory_order_relaxed);
        uint64_t at = table_.claim(cursor, kProbes);
        if (at == Table::kNone) {
            cursor += kProbes;
            return 0;
        }
        cursor = static_cast<uint32_t>(at + 1);
        table_.publish(at, at + 1);
        return at + 1;
    }

    // The slot of a tag from claim(); nullptr for a tag that is not one of ours.
    T *get(uint64_t tag) { return tag >= 1 && tag <= N ? &table_.value(tag - 1) : nullptr; }

    void release(uint64_t tag) {
        if (tag >= 1 && tag <= N) table_.release(tag - 1);
    }

private:
    static constexpr uint64_t kProbes = 256;
    std::atomic<uint32_t> next_cursor_{0};
    Table table_;
};

}  // namespace mspti::device
