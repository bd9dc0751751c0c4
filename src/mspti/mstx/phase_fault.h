// The virtual NPU's named-phase fault (docs/faults.md): while VNPU_FAULT_PHASE
// is set, each range start's message is passed to the runtime's vnpuFaultRangeStarted, which
// slows the range it names. Unset (always, outside tests and demos), it costs one flag test.
#pragma once

namespace mspti::mstx {

extern const bool g_phase_fault;  // VNPU_FAULT_PHASE was set when libmspti loaded
void phase_fault_slow(const char *message);

// After a range's start is recorded, so the slowed time lies inside the range.
inline void phase_fault(const char *message) {
    if (__builtin_expect(g_phase_fault, 0)) phase_fault_slow(message);
}

}  // namespace mspti::mstx
