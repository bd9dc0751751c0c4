// Where dlog lines go: stdout, or size-bounded files per process.
#pragma once

#include <cstddef>

namespace dlog {

/// Writes one complete line (ending in '\n'). Thread-safe; the files are rotated here.
void write_line(const char *line, size_t len);
/// Syncs the current file to disk.
void flush();

}  // namespace dlog
