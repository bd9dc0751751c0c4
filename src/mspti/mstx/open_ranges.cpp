#include "mstx/open_ranges.h"

#include <atomic>

#include "common/slot_table.h"

namespace mspti::mstx {
namespace {

constexpr uint64_t kProbes = 64;
constexpr int kEvictionRounds = 8;  // then give up (only under heavy contention on one window)

using Table = SlotTable<std::atomic<void *>, 1u << 16>;
Table g_table;
std::atomic<uint64_t> g_evicted{0};

// Ids come from per-thread blocks of consecutive values: mapping them to consecutive slots keeps a
// thread's open ranges on few, thread-private cache lines.
uint64_t home(uint64_t id) { return id; }

void publish(uint64_t at, uint64_t id, void *stream) {
    g_table.value(at).store(stream, std::memory_order_relaxed);
    g_table.publish(at, id);
}

// The window is full: take the slot of its oldest range (smallest id: ids grow over time).
// A concurrent end of that range wins or loses the same compare-exchange, so a range is
// either ended or evicted, never both.
bool claim_oldest(uint64_t id, void *stream) {
    uint64_t victim = Table::kNone;
    uint64_t victim_id = Table::kClaimed;
    for (uint64_t i = 0; i < kProbes; ++i) {
        uint64_t at = Table::index(home(id), i);
        uint64_t current = g_table.key(at);
        if (current == Table::kFree) {  // freed meanwhile
            at = g_table.claim(home(id), kProbes);
            if (at == Table::kNone) return false;
            publish(at, id, stream);
            return true;
        }
        if (current < victim_id) {
            victim = at;
            victim_id = current;
        }
    }
    if (victim == Table::kNone) return false;  // every slot is being claimed right now
    if (!g_table.try_claim(victim, victim_id)) return false;
    g_evicted.fetch_add(1, std::memory_order_relaxed);
    publish(victim, id, stream);
    return true;
}

}  // namespace

bool range_open(uint64_t id, void *stream) {
    if (!Table::usable(id)) return false;
    uint64_t at = g_table.claim(home(id), kProbes);
    if (at != Table::kNone) {
        publish(at, id, stream);
        return true;
    }
    for (int round = 0; round < kEvictionRounds; ++round)
        if (claim_oldest(id, stream)) return true;
    return false;
}

bool range_close(uint64_t id, void **stream) {
    uint64_t at = g_table.find(id, home(id), kProbes);
    if (at == Table::kNone) return false;
    void *s = g_table.value(at).load(std::memory_order_relaxed);
    // Lost: another thread ended (or evicted) the same range concurrently.
    if (!g_table.remove(at, id)) return false;
    if (stream != nullptr) *stream = s;
    return true;
}

RangeTableStats range_stats() {
    return RangeTableStats{g_table.count(), g_evicted.load(std::memory_order_relaxed), Table::kSize};
}

}  // namespace mspti::mstx
