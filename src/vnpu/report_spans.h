// The runtime's host API spans, reported through the virtual CANN's libprofapi.so as CANN's runtime
// reports them (prof_reports.h), and the runtime's clock.
#pragma once

#include <cstdint>

#include "prof_reports.h"

namespace vnpu::report {

/// CLOCK_MONOTONIC in ns: the runtime's clock (task times, timeouts).
uint64_t now_ns() noexcept;

/// Reports a host API span of `level` from construction to destruction, if a profiler wants it.
class ApiSpan {
public:
    ApiSpan(cann::ApiLevel level, const char *name) noexcept;
    ~ApiSpan();
    ApiSpan(const ApiSpan &) = delete;
    ApiSpan &operator=(const ApiSpan &) = delete;

private:
    bool on_;
    cann::ApiLevel level_;
    const char *name_;
    uint64_t beginNs_ = 0;
};

/// Reports a finished API span, if a profiler wants it.
void api(cann::ApiLevel level, const char *name, uint64_t begin_ns, uint64_t end_ns) noexcept;

}  // namespace vnpu::report

#define VNPU_ACL_SPAN(name) ::vnpu::report::ApiSpan vnpuAclSpan_(::vnpu::cann::ApiLevel::kAcl, name)
