// The runtime's side of include/vnpu/vnpu_profiler.h: the registered table and cheap helpers to report to it.
#pragma once

#include <cstdint>

#include "vnpu/vnpu_profiler.h"

namespace vnpu::profiler {

/// The registered table, or nullptr. Tables are immutable and never freed, so the pointer stays valid.
const vnpuProfiler *current() noexcept;

/// CLOCK_MONOTONIC in ns.
uint64_t nowNs() noexcept;

/// Reports a host API span of `level` from construction to destruction (only if a profiler wants onApi).
class ApiSpan {
public:
    ApiSpan(vnpuApiLevel level, const char *name) noexcept;
    ~ApiSpan();
    ApiSpan(const ApiSpan &) = delete;
    ApiSpan &operator=(const ApiSpan &) = delete;

private:
    const vnpuProfiler *table_;
    vnpuApiLevel level_;
    const char *name_;
    uint64_t beginNs_ = 0;
};

/// What an enqueued task needs to report its execution: the table that issued the tag, and the tag.
struct ExecutionTag {
    const vnpuProfiler *table = nullptr;
    uint64_t tag = 0;
};

ExecutionTag kernelEnqueued(const vnpuKernelInfo &info) noexcept;
void kernelExecuted(const ExecutionTag &tag, uint64_t startNs, uint64_t endNs) noexcept;
ExecutionTag collectiveEnqueued(const vnpuCollectiveInfo &info) noexcept;
void collectiveExecuted(const ExecutionTag &tag, uint64_t startNs, uint64_t endNs) noexcept;
void streamTraceReached(uint64_t markId, uint32_t flag, uint32_t deviceId, uint32_t streamId,
                        uint64_t timestampNs) noexcept;
void api(vnpuApiLevel level, const char *name, uint64_t beginNs, uint64_t endNs) noexcept;

} // namespace vnpu::profiler

#define VNPU_ACL_SPAN(name) ::vnpu::profiler::ApiSpan vnpuAclSpan_(VNPU_API_LEVEL_ACL, name)
