#include "interpose/allocation_table.h"

#include <atomic>

namespace mspti::interpose {
namespace {

constexpr uint64_t kSlots = 1u << 16;
constexpr uint64_t kProbes = 128;
constexpr uint64_t kEmpty = 0;
constexpr uint64_t kClaimed = ~0ull;  // taken, address not yet published

struct Slot {
    std::atomic<uint64_t> address{kEmpty};
    std::atomic<uint64_t> bytes{0};
};

Slot g_slots[kSlots];

uint64_t home(uint64_t address) { return ((address >> 5) * 0x9E3779B97F4A7C15ull) >> 48; }

}  // namespace

bool remember_allocation(uint64_t address, uint64_t bytes) {
    if (address == kEmpty || address == kClaimed) return false;
    uint64_t start = home(address);
    for (uint64_t i = 0; i < kProbes; ++i) {
        Slot &slot = g_slots[(start + i) & (kSlots - 1)];
        uint64_t expected = kEmpty;
        if (slot.address.load(std::memory_order_relaxed) == kEmpty &&
            slot.address.compare_exchange_strong(expected, kClaimed, std::memory_order_acquire)) {
            slot.bytes.store(bytes, std::memory_order_relaxed);
            slot.address.store(address, std::memory_order_release);
            return true;
        }
    }
    return false;
}

uint64_t forget_allocation(uint64_t address) {
    if (address == kEmpty || address == kClaimed) return 0;
    uint64_t start = home(address);
    for (uint64_t i = 0; i < kProbes; ++i) {
        Slot &slot = g_slots[(start + i) & (kSlots - 1)];
        if (slot.address.load(std::memory_order_acquire) != address) continue;
        uint64_t bytes = slot.bytes.load(std::memory_order_relaxed);
        uint64_t expected = address;
        if (slot.address.compare_exchange_strong(expected, kEmpty, std::memory_order_acq_rel)) return bytes;
    }
    return 0;
}

}  // namespace mspti::interpose
