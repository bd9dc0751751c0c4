#include "interpose/allocation_table.h"

#include <atomic>

#include "common/slot_table.h"

namespace mspti::interpose {
namespace {

constexpr uint64_t kProbes = 128;

using Table = SlotTable<std::atomic<uint64_t>, 1u << 16>;
Table g_table;

uint64_t home(uint64_t address) { return ((address >> 5) * 0x9E3779B97F4A7C15ull) >> 48; }

}  // namespace

bool remember_allocation(uint64_t address, uint64_t bytes) {
    if (!Table::usable(address)) return false;
    uint64_t at = g_table.claim(home(address), kProbes);
    if (at == Table::kNone) return false;
    g_table.value(at).store(bytes, std::memory_order_relaxed);
    g_table.publish(at, address);
    return true;
}

uint64_t forget_allocation(uint64_t address) {
    uint64_t at = g_table.find(address, home(address), kProbes);
    if (at == Table::kNone) return 0;
    uint64_t bytes = g_table.value(at).load(std::memory_order_relaxed);
    return g_table.remove(at, address) ? bytes : 0;
}

}  // namespace mspti::interpose
