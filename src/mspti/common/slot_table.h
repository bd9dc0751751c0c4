// SlotTable: a fixed array of slots shared by threads without locks or allocation, each slot a
// 64-bit key (kFree when unused) and a value. It is the one implementation behind libmspti's
// lock-free tables: open ranges (mstx/open_ranges), live allocations (interpose/allocation_table),
// HCCL ops in flight (device/hccl_ops) and the device tasks in flight (device/cann_collector).
//
// A writer claims a free slot (compare-exchange kFree -> kClaimed, so no reader can match it),
// writes the value, then publishes the key with a release store. A reader that loads the key
// with acquire sees the value written before it. Removing is a compare-exchange key -> kFree, so
// of two threads removing (or evicting) the same key exactly one wins. Callers choose where a
// key's search starts (its hash) and how many slots a search looks at.
#pragma once

#include <atomic>
#include <cstdint>

namespace mspti {

template <typename Value, uint64_t N>
class SlotTable {
    static_assert(N != 0 && (N & (N - 1)) == 0, "N must be a power of two");

public:
    static constexpr uint64_t kFree = 0;
    static constexpr uint64_t kClaimed = ~0ull;  // taken, key not yet published
    static constexpr uint64_t kNone = ~0ull;  // "no slot" (indexes are below N)
    static constexpr uint64_t kSize = N;

    /// Whether `key` can be stored (kFree and kClaimed are reserved).
    static constexpr bool usable(uint64_t key) { return key != kFree && key != kClaimed; }

    /// The slot `i` places after `start` (wrapping around the table).
    static constexpr uint64_t index(uint64_t start, uint64_t i) { return (start + i) & (N - 1); }

    /// The key of slot `at` now (acquire: a published key's value is visible).
    uint64_t key(uint64_t at) const { return slots_[at].key.load(std::memory_order_acquire); }

    /// The value of slot `at` (its owner writes it between claim and publish).
    Value &value(uint64_t at) { return slots_[at].value; }

    /// Claims slot `at` if its key is still `expected` (kFree to take a free slot, a key to evict it).
    bool try_claim(uint64_t at, uint64_t expected) {
        std::atomic<uint64_t> &k = slots_[at].key;
        return k.load(std::memory_order_relaxed) == expected &&
               k.compare_exchange_strong(expected, kClaimed, std::memory_order_acq_rel);
    }

    /// Claims the first free slot of the `probes` slots from `start`; its index, or kNone.
    uint64_t claim(uint64_t start, uint64_t probes) {
        for (uint64_t i = 0; i < probes; ++i) {
            uint64_t at = index(start, i);
            if (try_claim(at, kFree)) return at;
        }
        return kNone;
    }

    /// Makes a claimed slot findable under `key` (release: after its value).
    void publish(uint64_t at, uint64_t key) { slots_[at].key.store(key, std::memory_order_release); }

    /// The slot holding `key` among the `probes` slots from `start`, or kNone.
    uint64_t find(uint64_t key, uint64_t start, uint64_t probes) const {
        if (!usable(key)) return kNone;  // kFree would match every free slot
        for (uint64_t i = 0; i < probes; ++i) {
            uint64_t at = index(start, i);
            if (slots_[at].key.load(std::memory_order_acquire) == key) return at;
        }
        return kNone;
    }

    /// Frees slot `at` if it still holds `key`; false if another thread removed it first.
    bool remove(uint64_t at, uint64_t key) {
        return slots_[at].key.compare_exchange_strong(key, kFree, std::memory_order_acq_rel);
    }

    /// Frees slot `at`, which the caller owns (claimed, or published and not shared).
    void release(uint64_t at) { slots_[at].key.store(kFree, std::memory_order_release); }

    /// Slots holding a published key (scans the table: for statistics, not hot paths).
    uint64_t count() const {
        uint64_t n = 0;
        for (const Slot &slot : slots_) n += usable(slot.key.load(std::memory_order_relaxed));
        return n;
    }

private:
    struct Slot {
        std::atomic<uint64_t> key{kFree};
        Value value{};
    };
    Slot slots_[N];
};

}  // namespace mspti
