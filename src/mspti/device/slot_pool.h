// A fixed pool of slots for work between its enqueue (host thread) and its execution (stream
// worker): claim returns a non-zero tag, release frees it. Lock-free, never allocates; each
// thread starts claiming at its own cursor so threads rarely touch the same slots.
#pragma once

#include <atomic>
#include <cstdint>

namespace mspti::device {

template <typename T, uint32_t N>
class SlotPool {
    static_assert((N & (N - 1)) == 0, "N must be a power of two");

public:
    // A free slot's tag (index + 1), or 0 when the pool is full around the cursor.
    uint64_t claim() {
        static thread_local uint32_t cursor = next_cursor_.fetch_add(N / 64, std::memory_order_relaxed);
        for (uint32_t probe = 0; probe < 256; ++probe) {
            uint32_t index = cursor++ & (N - 1);
            uint32_t expected = 0;
            if (busy_[index].load(std::memory_order_relaxed) == 0 &&
                busy_[index].compare_exchange_strong(expected, 1, std::memory_order_acquire))
                return index + 1ull;
        }
        return 0;
    }

    // The slot of a tag from claim(); nullptr for a tag that is not one of ours.
    T *get(uint64_t tag) { return tag >= 1 && tag <= N ? &items_[tag - 1] : nullptr; }

    void release(uint64_t tag) {
        if (tag >= 1 && tag <= N) busy_[tag - 1].store(0, std::memory_order_release);
    }

private:
    std::atomic<uint32_t> next_cursor_{0};
    std::atomic<uint32_t> busy_[N] = {};
    T items_[N] = {};
};

}  // namespace mspti::device
