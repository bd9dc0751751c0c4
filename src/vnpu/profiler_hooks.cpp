// Profiler registration and reporting. The table is read on every event, so it is a single atomic pointer
// to an immutable copy; replaced copies are kept forever (a few bytes per registration) so that a reader
// never sees a freed table.
#include "profiler_hooks.h"

#include <atomic>
#include <cstring>
#include <ctime>
#include <mutex>
#include <vector>

#include "export.h"

namespace vnpu::profiler {
namespace {

std::atomic<const vnpuProfiler *> g_table{nullptr};

std::mutex &retired_mutex() {
    static auto *m = new std::mutex;  // leaked on purpose: usable during process exit
    return *m;
}
std::vector<const vnpuProfiler *> &retired_tables() {
    static auto *v = new std::vector<const vnpuProfiler *>;
    return *v;
}

// Execution callbacks go to the profiler instance that issued the tag: the current table if it belongs to
// the same profiler (same userdata), otherwise they are dropped (the profiler was unregistered or replaced).
const vnpuProfiler *table_for_tag(const ExecutionTag &tag) noexcept {
    const vnpuProfiler *now = g_table.load(std::memory_order_acquire);
    if (now == nullptr || tag.table == nullptr || now->userdata != tag.table->userdata) {
        return nullptr;
    }
    return now;
}

}  // namespace

const vnpuProfiler *current() noexcept { return g_table.load(std::memory_order_acquire); }

uint64_t now_ns() noexcept {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

ApiSpan::ApiSpan(vnpuApiLevel level, const char *name) noexcept
    : table_(current()), cann_(cann::api_wanted(level)), level_(level), name_(name) {
    if (table_ == nullptr || table_->onApi == nullptr) {
        table_ = nullptr;
    }
    if (table_ != nullptr || cann_) {
        beginNs_ = now_ns();
    }
}

ApiSpan::~ApiSpan() {
    if (table_ == nullptr && !cann_) {
        return;
    }
    const uint64_t end = now_ns();
    if (table_ != nullptr) {
        table_->onApi(table_->userdata, level_, name_, beginNs_, end);
    }
    if (cann_) {
        cann::report_api(level_, name_, beginNs_, end);
    }
}

void api(vnpuApiLevel level, const char *name, uint64_t begin_ns, uint64_t end_ns) noexcept {
    const vnpuProfiler *t = current();
    if (t != nullptr && t->onApi != nullptr) {
        t->onApi(t->userdata, level, name, begin_ns, end_ns);
    }
    if (cann::api_wanted(level)) {
        cann::report_api(level, name, begin_ns, end_ns);
    }
}

ExecutionTag kernel_enqueued(const vnpuKernelInfo &info) noexcept {
    ExecutionTag tag;
    tag.cann = cann::kernel_enqueued(info);
    const vnpuProfiler *t = current();
    if (t != nullptr && t->onKernelEnqueue != nullptr) {
        tag.table = t;
        tag.tag = t->onKernelEnqueue(t->userdata, &info);
    }
    return tag;
}

void kernel_executed(const ExecutionTag &tag, const vnpuKernelInfo &info, uint64_t start_ns, uint64_t end_ns) noexcept {
    cann::task_executed(tag.cann, start_ns, end_ns);
    if (tag.tag == 0) {
        return;
    }
    const vnpuProfiler *t = table_for_tag(tag);
    if (t != nullptr && t->onKernelExecuted != nullptr) {
        t->onKernelExecuted(t->userdata, tag.tag, &info, start_ns, end_ns);
    }
}

ExecutionTag collective_enqueued(const vnpuCollectiveInfo &info) noexcept {
    ExecutionTag tag;
    tag.cann = cann::collective_enqueued(info);
    const vnpuProfiler *t = current();
    if (t != nullptr && t->onCollectiveEnqueue != nullptr) {
        tag.table = t;
        tag.tag = t->onCollectiveEnqueue(t->userdata, &info);
    }
    return tag;
}

void collective_executed(const ExecutionTag &tag, uint64_t start_ns, uint64_t end_ns) noexcept {
    cann::task_executed(tag.cann, start_ns, end_ns);
    if (tag.tag == 0) {
        return;
    }
    const vnpuProfiler *t = table_for_tag(tag);
    if (t != nullptr && t->onCollectiveExecuted != nullptr) {
        t->onCollectiveExecuted(t->userdata, tag.tag, start_ns, end_ns);
    }
}

void stream_trace_reached(uint64_t mark_id, uint32_t flag, uint32_t device_id, uint32_t stream_id,
                          uint64_t timestamp_ns) noexcept {
    const vnpuProfiler *t = current();
    if (t != nullptr && t->onStreamTrace != nullptr) {
        t->onStreamTrace(t->userdata, mark_id, flag, device_id, stream_id, timestamp_ns);
    }
}

}  // namespace vnpu::profiler

extern "C" {

VNPU_EXPORT int vnpuProfilerRegister(const vnpuProfiler *profiler) {
    using namespace vnpu::profiler;
    const vnpuProfiler *copy = nullptr;
    if (profiler != nullptr) {
        if (profiler->structSize < sizeof(vnpuProfiler)) {
            return 1;
        }
        auto *table = new vnpuProfiler;
        std::memcpy(table, profiler, sizeof(vnpuProfiler));
        table->structSize = sizeof(vnpuProfiler);
        copy = table;
    }
    std::lock_guard<std::mutex> lock(retired_mutex());
    const vnpuProfiler *old = g_table.exchange(copy, std::memory_order_acq_rel);
    if (old != nullptr) {
        retired_tables().push_back(old);
    }
    return 0;
}

VNPU_EXPORT uint64_t vnpuNowNs(void) { return vnpu::profiler::now_ns(); }

}  // extern "C"
