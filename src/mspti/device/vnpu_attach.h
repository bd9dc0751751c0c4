// Hooks libmspti up to the virtual NPU's profiler interface (include/vnpu/vnpu_profiler.h).
//
// When: the runtime is looked for (dlsym RTLD_DEFAULT, then RTLD_NEXT) at msptiSubscribe, at
// every msptiActivityEnable/Disable, and lazily from the interposed aclInit and aclrtSetDevice
// (the first calls any program makes, by which time the runtime is surely loaded). Until it is
// found each of those tries again; once found, the registration stays for the process.
//
// What: the table registered with vnpuProfilerRegister carries only the enqueue-time callbacks
// the enabled kinds need (re-registered when that set changes), so a runtime with nothing
// enabled pays no profiler calls. Execution callbacks and onStreamTrace stay registered, so
// work already tagged still completes. mstx markers on a stream go through vnpuStreamTrace.
#pragma once

#include <cstdint>

namespace mspti::device {

// Finds the runtime and registers (or updates) the profiler table; false if not found.
bool attach();

// attach() unless already attached: one relaxed load on the fast path.
void attach_lazily();

// Enqueues a trace task on `stream` (vnpuStreamTrace); non-zero if not possible.
int stream_trace(void *stream, uint64_t markId, uint32_t flag);

// fork(): holds the attach lock across the fork (see core/fork_guard.h).
void fork_prepare();
void fork_release();

}  // namespace mspti::device
