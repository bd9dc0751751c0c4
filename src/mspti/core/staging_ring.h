// A thread's staging ring: a single-producer ring of fixed-size record slots that the recording
// thread fills without locks or allocation, drained by whichever consumer (worker, FlushAll, the
// producer itself at each quarter of its ring) holds the engine's consumer lock. It also counts the
// records per kind: dropped by the producer (a single-writer counter) and taken by the consumer;
// the records produced are those two plus the ones staged (produced()).
#pragma once

#include <atomic>
#include <cstdint>

#include "core/activity_kinds.h"

namespace mspti {

struct alignas(8) StagingSlot {
    unsigned char bytes[kMaxRecordSize];
};

// Counter written by one thread and read by others: no read-modify-write needed.
inline void bump(std::atomic<uint64_t> &counter) {
    counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

class StagingRing {
public:
    // `capacity` is a power of two, at least 4.
    explicit StagingRing(uint32_t capacity);
    ~StagingRing();
    StagingRing(const StagingRing &) = delete;
    StagingRing &operator=(const StagingRing &) = delete;

    // Producer: a slot for the next record, or nullptr when the ring is full.
    void *try_reserve() {
        uint64_t h = head_.load(std::memory_order_relaxed);
        if (__builtin_expect(h >= limit_, 0)) {
            limit_ = tail_.load(std::memory_order_acquire) + capacity_;
            if (h >= limit_) return nullptr;
        }
        return slots_[h & mask_].bytes;
    }

    // Producer: try_reserve() and commit() in steps, for a caller with a path of its own for a
    // full ring, that keeps the head in a register from the test to the commit (its stores into
    // the slot could alias head_, which would then be loaded again): whether there is room (`h`
    // then names the next slot), the slot, the commit.
    bool room_at(uint64_t &h) {
        h = head_.load(std::memory_order_relaxed);
        if (__builtin_expect(h >= limit_, 0)) {
            limit_ = tail_.load(std::memory_order_acquire) + capacity_;
            if (h >= limit_) return false;
        }
        return true;
    }
    void *slot_at(uint64_t h) { return slots_[h & mask_].bytes; }
    // commit() of the slot `h` from room_at().
    bool commit_at(uint64_t h) {
        head_.store(h + 1, std::memory_order_release);
        return ((h + 1) & nudge_mask_) == 0;
    }

    // Producer: publishes the reserved slot. Returns true when the consumer should be nudged.
    // Nothing is counted here: the slot's kind says what it was (produced()).
    bool commit() {
        uint64_t h = head_.load(std::memory_order_relaxed) + 1;
        head_.store(h, std::memory_order_release);
        return (h & nudge_mask_) == 0;
    }

    // Producer: a record of `kind` that could not be staged.
    void count_dropped(int kind) { bump(dropped_[kind]); }

    // Consumer: `n` records of `kind` left the ring (copied into a buffer, or dropped for want of one).
    void count_taken(int kind, uint64_t n) { taken_[kind] += n; }

    // Consumer (under the engine's consumer lock): the unread range [tail, head).
    uint64_t read_tail() const { return tail_.load(std::memory_order_relaxed); }
    uint64_t read_head() const { return head_.load(std::memory_order_acquire); }
    const unsigned char *slot(uint64_t index) const { return slots_[index & mask_].bytes; }
    // The slots and the index mask, for a consumer's loop to keep in registers (its stores into
    // the client buffer could alias the ring's fields, which it would then load again each record).
    const StagingSlot *slots() const { return slots_; }
    uint64_t mask() const { return mask_; }
    void release_to(uint64_t tail) { tail_.store(tail, std::memory_order_release); }

    // In a forked child, on the thread that forked (the only one left): forgets what the parent
    // staged (the parent delivers it), zeroes the counters, and places the ring so that the
    // child's first record asks for the worker.
    void restart_after_fork();

    uint64_t capacity() const { return capacity_; }
    // Records staged and not yet drained (exact for the producer, approximate for others).
    uint64_t fill() const { return head_.load(std::memory_order_relaxed) - tail_.load(std::memory_order_relaxed); }

    // Consumer (under the consumer lock): the records of `kind` staged so far, dropped or not:
    // those taken, those dropped by the producer, and those staged now.
    uint64_t produced(int kind) const;
    uint64_t dropped(int kind) const { return dropped_[kind].load(std::memory_order_relaxed); }

private:
    alignas(64) std::atomic<uint64_t> head_{0};
    uint64_t limit_;  // producer-only: the tail it last read plus the capacity (head below it: room)
    uint64_t capacity_;
    uint64_t mask_;
    uint64_t nudge_mask_;
    StagingSlot *slots_;
    std::atomic<uint64_t> dropped_[kKindCount] = {};
    uint64_t taken_[kKindCount] = {};  // consumer-only (under the consumer lock)
    alignas(64) std::atomic<uint64_t> tail_{0};
};

}  // namespace mspti
