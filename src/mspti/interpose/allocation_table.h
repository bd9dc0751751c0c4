// Live device allocations (address -> bytes) seen while MEMORY was enabled, so that a release
// record can carry the size. Fixed, lock-free open addressing: no lock, no allocation.
#pragma once

#include <cstdint>

namespace mspti::interpose {

// Remembers an allocation; false if the table is full around its slot.
bool remember_allocation(uint64_t address, uint64_t bytes);

// Forgets an allocation and returns its size; 0 if it was never remembered.
uint64_t forget_allocation(uint64_t address);

}  // namespace mspti::interpose
