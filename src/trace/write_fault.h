// Write-failure injection for the tests (docs/trace.md, "Write failures"): MSPTI_TRACE_WRITE_FAULT
// makes the trace's writes fail as a full disk (ENOSPC) or a failing one (EIO) would, for a window
// of the bytes this process writes. Unset (the normal case): every check is one load and a branch.
#pragma once

#include <cstddef>
#include <string>

namespace mspti_trace {

// Reads MSPTI_TRACE_WRITE_FAULT = `enospc|eio@FROM[+LENGTH]` (bytes; no LENGTH: for good).
// False with a message naming the value when it is malformed.
bool load_write_fault(std::string &error);

// Whether a write of n bytes fails, and with which errno (0: it goes through). Each call moves
// the process's write position on by n, so a fault ends once LENGTH bytes met it. ENOSPC fails
// only writes that need new space (`space_held` false); EIO fails every write in the window.
int write_fault(size_t n, bool space_held);

// The name of an SQLite VFS that applies write_fault() to every file of a database (a write
// beyond the file's end needs new space), or nullptr when no fault is set.
const char *sqlite_fault_vfs();

}  // namespace mspti_trace
