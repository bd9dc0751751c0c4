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

std::mutex &retiredMutex() {
    static auto *m = new std::mutex;  // leaked on purpose: usable during process exit
    return *m;
}
std::vector<const vnpuProfiler *> &retiredTables() {
    static auto *v = new std::vector<const vnpuProfiler *>;
    return *v;
}

// Execution callbacks go to the profiler instance that issued the tag: the current table if it belongs to
// the same profiler (same userdata), otherwise they are dropped (the profiler was unregistered or replaced).
const vnpuProfiler *tableForTag(const ExecutionTag &tag) noexcept {
    const vnpuProfiler *now = g_table.load(std::memory_order_acquire);
    if (now == nullptr || tag.table == nullptr || now->userdata != tag.table->userdata) {
        return nullptr;
    }
    return now;
}

} // namespace

const vnpuProfiler *current() noexcept { return g_table.load(std::memory_order_acquire); }

uint64_t nowNs() noexcept {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

ApiSpan::ApiSpan(vnpuApiLevel level, const char *name) noexcept : table_(current()), level_(level), name_(name) {
    if (table_ != nullptr && table_->onApi != nullptr) {
        beginNs_ = nowNs();
    } else {
        table_ = nullptr;
    }
}

ApiSpan::~ApiSpan() {
    if (table_ != nullptr) {
        table_->onApi(table_->userdata, level_, name_, beginNs_, nowNs());
    }
}

void api(vnpuApiLevel level, const char *name, uint64_t beginNs, uint64_t endNs) noexcept {
    const vnpuProfiler *t = current();
    if (t != nullptr && t->onApi != nullptr) {
        t->onApi(t->userdata, level, name, beginNs, endNs);
    }
}

ExecutionTag kernelEnqueued(const vnpuKernelInfo &info) noexcept {
    const vnpuProfiler *t = current();
    if (t == nullptr || t->onKernelEnqueue == nullptr) {
        return {};
    }
    return {t, t->onKernelEnqueue(t->userdata, &info)};
}

void kernelExecuted(const ExecutionTag &tag, uint64_t startNs, uint64_t endNs) noexcept {
    if (tag.tag == 0) {
        return;
    }
    const vnpuProfiler *t = tableForTag(tag);
    if (t != nullptr && t->onKernelExecuted != nullptr) {
        t->onKernelExecuted(t->userdata, tag.tag, startNs, endNs);
    }
}

ExecutionTag collectiveEnqueued(const vnpuCollectiveInfo &info) noexcept {
    const vnpuProfiler *t = current();
    if (t == nullptr || t->onCollectiveEnqueue == nullptr) {
        return {};
    }
    return {t, t->onCollectiveEnqueue(t->userdata, &info)};
}

void collectiveExecuted(const ExecutionTag &tag, uint64_t startNs, uint64_t endNs) noexcept {
    if (tag.tag == 0) {
        return;
    }
    const vnpuProfiler *t = tableForTag(tag);
    if (t != nullptr && t->onCollectiveExecuted != nullptr) {
        t->onCollectiveExecuted(t->userdata, tag.tag, startNs, endNs);
    }
}

void streamTraceReached(uint64_t markId, uint32_t flag, uint32_t deviceId, uint32_t streamId,
                        uint64_t timestampNs) noexcept {
    const vnpuProfiler *t = current();
    if (t != nullptr && t->onStreamTrace != nullptr) {
        t->onStreamTrace(t->userdata, markId, flag, deviceId, streamId, timestampNs);
    }
}

} // namespace vnpu::profiler

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
    std::lock_guard<std::mutex> lock(retiredMutex());
    const vnpuProfiler *old = g_table.exchange(copy, std::memory_order_acq_rel);
    if (old != nullptr) {
        retiredTables().push_back(old);
    }
    return 0;
}

VNPU_EXPORT uint64_t vnpuNowNs(void) { return vnpu::profiler::nowNs(); }

} // extern "C"
