// TaskTable: the device tasks between their track report (enqueuing thread) and their end record
// (reader thread), keyed by device, stream and task id. A SlotTable whose lookups cost one slot in
// the common case, hit or miss:
// - a key's home slot follows its task id at a fixed odd stride (kStride), offset by a hash of its
//   device and stream, so a stream's tasks in flight never share a home. The stride, not
//   consecutive slots: two streams whose offsets lie close, consecutive, overlapped slot for slot and
//   every entry of the second was displaced onto the next home of the first, a run that grew past
//   the probe window with a few thousand tasks in flight in a table of 65,536 (records dropped). At
//   a stride, a displaced entry's next slot belongs to a task tens of thousands away;
// - each home slot counts the entries of that home that live elsewhere (displaced past a taken home
//   slot). A lookup that misses the home slot searches further only while that count is not zero.
// Without the count, a lookup of a key that is not there (every track report: "is an old entry of
// this task id still waiting?") looked at all of its probe window.
//
// The count goes up before a displaced entry is published and down after it is removed, so a
// reader that sees a published key also sees its home's count above zero.
#pragma once

#include <atomic>
#include <cstdint>

#include "common/slot_table.h"

namespace mspti::device {

template <typename Value, uint64_t N, uint64_t Probes>
class TaskTable {
    using Slots = SlotTable<Value, N>;
    static_assert(Probes >= 1 && Probes <= N, "the probe window lies within the table");

public:
    static constexpr uint64_t kNone = Slots::kNone;
    static constexpr uint64_t kSize = N;

    /// Key of a task: `device` and `stream` (16 bits) and `task` (16 bits; 32 bits with `wide`).
    static uint64_t make_key(uint32_t device, uint32_t stream, uint32_t task, bool wide) {
        uint64_t dev = uint64_t{device + 1} << 48;
        if (wide) return dev | task;
        return dev | (uint64_t{stream & 0xffff} << 16) | (task & 0xffff);
    }

    /// Slots between the homes of a stream's consecutive tasks: odd, so that N consecutive task ids
    /// still take distinct homes; small, so that the stride stays one a prefetcher follows.
    static constexpr uint64_t kStride = 3;

    /// The home slot of `key`: its low 16 bits (the task id) times kStride, offset by a hash of the rest.
    static uint64_t home(uint64_t key) {
        return ((key & 0xffff) * kStride + ((key >> 16) * 0x9E3779B97F4A7C15ull >> 40)) & (N - 1);
    }

    /// The slot holding `key`, or kNone.
    uint64_t find(uint64_t key) const {
        const uint64_t h = home(key);
        if (slots_.key(h) == key) return h;
        if (spill_[h].load(std::memory_order_acquire) == 0) return kNone;
        return slots_.find(key, Slots::index(h, 1), Probes - 1);
    }

    /// Claims a free slot for `key` (its home, else one of the next Probes - 1); kNone when all are taken.
    uint64_t claim(uint64_t key) {
        const uint64_t h = home(key);
        if (slots_.try_claim(h, Slots::kFree)) return h;
        spill_[h].fetch_add(1, std::memory_order_acq_rel);
        uint64_t at = slots_.claim(Slots::index(h, 1), Probes - 1);
        if (at == kNone) spill_[h].fetch_sub(1, std::memory_order_acq_rel);
        return at;
    }

    /// Makes a claimed slot findable under `key`.
    void publish(uint64_t at, uint64_t key) { slots_.publish(at, key); }

    /// Frees slot `at` if it still holds `key`; false if another thread removed it first.
    bool remove(uint64_t at, uint64_t key) {
        if (!slots_.remove(at, key)) return false;
        const uint64_t h = home(key);
        if (at != h) spill_[h].fetch_sub(1, std::memory_order_acq_rel);
        return true;
    }

    /// Removes every entry (tasks whose end will not come).
    void clear() {
        for (uint64_t at = 0; at < N; ++at) {
            uint64_t k = slots_.key(at);
            if (Slots::usable(k)) remove(at, k);
        }
    }

    uint64_t key(uint64_t at) const { return slots_.key(at); }
    Value &value(uint64_t at) { return slots_.value(at); }
    /// Entries held now (scans the table: for tests and statistics).
    uint64_t count() const { return slots_.count(); }

private:
    Slots slots_;
    std::atomic<uint32_t> spill_[N]{};
};

}  // namespace mspti::device
