// The runtime's side of include/vnpu/vnpu_profiler.h: the registered table and cheap helpers to report to it.
#pragma once

#include <cstdint>

#include "prof_reports.h"
#include "vnpu/vnpu_profiler.h"

namespace vnpu::profiler {

/// The registered table, or nullptr. Tables are immutable and never freed, so the pointer stays valid.
const vnpuProfiler *current() noexcept;

/// CLOCK_MONOTONIC in ns.
uint64_t now_ns() noexcept;

/// Reports a host API span of `level` from construction to destruction (only if a profiler wants on_api).
class ApiSpan {
public:
    ApiSpan(vnpuApiLevel level, const char *name) noexcept;
    ~ApiSpan();
    ApiSpan(const ApiSpan &) = delete;
    ApiSpan &operator=(const ApiSpan &) = delete;

private:
    const vnpuProfiler *table_;
    bool cann_;  // reported to libprofapi as well
    vnpuApiLevel level_;
    const char *name_;
    uint64_t beginNs_ = 0;
};

/// What an enqueued task needs to report its execution: the table that issued the tag, and the tag; and
/// the task as the virtual CANN's device channels know it.
struct ExecutionTag {
    const vnpuProfiler *table = nullptr;
    uint64_t tag = 0;
    cann::Task cann{};
};

ExecutionTag kernel_enqueued(const vnpuKernelInfo &info) noexcept;
void kernel_executed(const ExecutionTag &tag, const vnpuKernelInfo &info, uint64_t start_ns, uint64_t end_ns) noexcept;
ExecutionTag collective_enqueued(const vnpuCollectiveInfo &info) noexcept;
void collective_executed(const ExecutionTag &tag, uint64_t start_ns, uint64_t end_ns) noexcept;
void stream_trace_reached(uint64_t mark_id, uint32_t flag, uint32_t device_id, uint32_t stream_id,
                          uint64_t timestamp_ns) noexcept;
void api(vnpuApiLevel level, const char *name, uint64_t begin_ns, uint64_t end_ns) noexcept;

}  // namespace vnpu::profiler

#define VNPU_ACL_SPAN(name) ::vnpu::profiler::ApiSpan vnpuAclSpan_(VNPU_API_LEVEL_ACL, name)
