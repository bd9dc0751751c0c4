// Fault injection for tests and demos (docs/faults.md): VNPU_FAULT_* settings,
// read once when the library loads, that slow one rank's kernels, its collectives or one named
// mstx phase, so that a traced run has a known answer. With no setting the checks below are one
// load of a constant flag.
#pragma once

#include <cstdint>

namespace vnpu::fault {

/// What the environment asked for in this process (all zero when no fault applies to it).
struct Settings {
    uint64_t kernel_ns = 0;  ///< added to every kernel's execution
    uint64_t collective_ns = 0;  ///< added to every collective after its data has moved
    uint64_t phase_ns = 0;  ///< added at the start of every mstx range named `phase`
    const char *phase = nullptr;
};

/// The settings, parsed at load (a bad value ends the process with a message naming it).
extern const Settings g_settings;

void delay(uint64_t ns);

/// Called on the stream worker after a kernel ran, before its end is stamped.
inline void after_kernel() {
    if (__builtin_expect(g_settings.kernel_ns != 0, 0)) delay(g_settings.kernel_ns);
}

/// Called on the stream worker after a collective's exchange, before its end is stamped: this
/// rank's side of the link is the slow one, the others are not held up in this collective.
inline void after_collective() {
    if (__builtin_expect(g_settings.collective_ns != 0, 0)) delay(g_settings.collective_ns);
}

}  // namespace vnpu::fault
