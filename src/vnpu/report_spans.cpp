#include "report_spans.h"

#include <ctime>

namespace vnpu::report {

uint64_t now_ns() noexcept {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

ApiSpan::ApiSpan(cann::ApiLevel level, const char *name) noexcept
    : on_(cann::api_wanted(level)), level_(level), name_(name) {
    if (on_) {
        beginNs_ = now_ns();
    }
}

ApiSpan::~ApiSpan() {
    if (on_) {
        cann::report_api(level_, name_, beginNs_, now_ns());
    }
}

void api(cann::ApiLevel level, const char *name, uint64_t begin_ns, uint64_t end_ns) noexcept {
    if (cann::api_wanted(level)) {
        cann::report_api(level, name, begin_ns, end_ns);
    }
}

}  // namespace vnpu::report
