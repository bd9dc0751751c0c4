// The options the launcher passes through the environment (docs/trace.md, "Environment").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mspti/mspti_activity.h"

namespace mspti_trace {

enum class Format { kPftrace, kJson, kJsonGz, kSqlite };

struct Config {
    std::string dir;  // MSPTI_TRACE_DIR; empty: the library stays idle
    Format format = Format::kPftrace;
    std::vector<msptiActivityKind> kinds;  // what to enable
    uint64_t start_ns = 0;  // the launch, epoch ns
    uint64_t window_begin = 0;  // records start in [window_begin, window_end)
    uint64_t window_end = UINT64_MAX;
    std::string capture_range;  // empty: no capture range
    uint32_t flush_ms = 250;
    uint32_t max_buffers = 64;  // MSPTI_TRACE_MAX_BUFFERS: 1 MiB buffers in flight, at most
    int rank = -1, world_size = -1, local_rank = -1;

    // Reads the environment; returns false (with a message in `error`) for a bad value.
    bool load(std::string &error);
    // "trace.rank<R>.pid<P>.<ext>" in dir.
    std::string file_path(uint32_t pid) const;
};

}  // namespace mspti_trace
