// Whether libmspti's definitions of the runtime's entry points are the ones the process
// resolves (LD_PRELOAD, or linked ahead of the runtime), and how to reach the real ones.
#pragma once

namespace mspti::interpose {

// True when the process-wide definition of the probe entry point (aclInit, always
// interposed) is libmspti's.
bool interposing();

// The next definition of `name` after libmspti (the real runtime's), or nullptr.
void *next_symbol(const char *name);

// Reports (once per name) that the real `name` could not be found behind libmspti.
void report_missing(const char *name);

}  // namespace mspti::interpose
