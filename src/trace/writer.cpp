#include "writer.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "json_sink.h"
#include "libmspti_ext.h"
#include "loss.h"
#include "mspti/mspti.h"
#include "nearly_sorted.h"
#include "pftrace_sink.h"
#include "sqlite_sink.h"
#include "wall_clock.h"

namespace mspti_trace {

namespace {

constexpr size_t kMaxPending = 1u << 20;  // records held back for the capture range, at most

}  // namespace

Writer::Writer(const Config &config) : config_(config), pid_(static_cast<uint32_t>(getpid())), filter_(config) {
    sem_init(&wake_, 0, 0);
    sem_init(&done_, 0, 0);
    sem_init(&synced_, 0, 0);
}

void Writer::start() {
    // The writer never takes SIGTERM: the handler waits for it.
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    thread_ = std::thread([this] { run(); });
    pthread_setname_np(thread_.native_handle(), "mspti-trace");
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    started_ = true;
}

void Writer::on_request(uint8_t **buffer, size_t *size, size_t *maxNumRecords) {
    *maxNumRecords = 0;
    uint8_t *b = nullptr;
    {
        std::lock_guard<std::mutex> lock(queue_mutex_);
        if (!free_.empty()) {
            b = free_.back();
            free_.pop_back();
        } else if (allocated_ < config_.max_buffers && !finished_.load(std::memory_order_relaxed)) {
            ++allocated_;
        } else {
            *buffer = nullptr;  // declined: msPTI counts the records as dropped
            *size = 0;
            return;
        }
    }
    if (b == nullptr) {
        b = static_cast<uint8_t *>(std::aligned_alloc(8, kBufferBytes));
        if (b == nullptr) {
            std::lock_guard<std::mutex> lock(queue_mutex_);
            --allocated_;
        }
    }
    *buffer = b;
    *size = b != nullptr ? kBufferBytes : 0;
}

void Writer::on_complete(uint8_t *buffer, size_t, size_t validSize) {
    if (buffer == nullptr) return;
    std::lock_guard<std::mutex> lock(queue_mutex_);
    if (finished_.load(std::memory_order_relaxed)) {
        free_.push_back(buffer);  // after the end: the file is closed
        return;
    }
    full_.emplace_back(buffer, validSize);
    // A window every kWakeBuffers full buffers too, not only every flush period: the writer keeps
    // up during the run (less left for the exit) and works on a few MiB that stay in cache.
    if (full_.size() == kWakeBuffers) sem_post(&wake_);
}

void Writer::finish(int idle_ms) {
    if (!started_) return;
    if (!finished_.load()) {
        finishing_ = true;
        sem_post(&wake_);
        if (!wait_finished(idle_ms)) report_writer_abandoned(config_.file_path(pid_), idle_ms);
    }
    if (thread_.joinable()) {
        if (finished_.load())
            thread_.join();  // it has returned from run(), or is about to
        else
            thread_.detach();  // stuck (in msPTI?): the process is ending anyway
    }
}

void Writer::finish_from_signal() {
    if (!started_ || finished_.load()) return;
    signalled_ = true;
    finishing_ = true;
    sem_post(&wake_);
}

bool Writer::wait_finished(int idle_ms) {
    if (!started_) return true;
    uint64_t seen = progress_.load(std::memory_order_relaxed);
    timespec until = wall_clock_after(idle_ms);
    while (!finished_.load()) {
        if (sem_timedwait(&done_, &until) == 0) {
            sem_post(&done_);  // for any other waiter
            return true;
        }
        if (errno == EINTR) continue;
        const uint64_t now = progress_.load(std::memory_order_relaxed);
        if (now == seen) return finished_.load();  // no progress for idle_ms: give up waiting
        seen = now;
        until = wall_clock_after(idle_ms);
    }
    return true;
}

void Writer::sync_from_signal(int timeout_ms) {
    if (!started_ || finished_.load()) return;
    while (sem_trywait(&synced_) == 0) {  // a late post from an earlier request that timed out
    }
    sync_ = true;
    sem_post(&wake_);
    timespec until = wall_clock_after(timeout_ms);
    while (sem_timedwait(&synced_, &until) != 0 && errno == EINTR && !finished_.load()) {}
}

bool Writer::ensure_sink() {
    if (sink_ != nullptr) return true;
    if (sink_failed_) return false;
    switch (config_.format) {
    case Format::kPftrace: sink_ = std::make_unique<PftraceSink>(pid_); break;
    case Format::kJson: sink_ = std::make_unique<JsonSink>(config_, pid_, false); break;
    case Format::kJsonGz: sink_ = std::make_unique<JsonSink>(config_, pid_, true); break;
    case Format::kSqlite: sink_ = std::make_unique<SqliteSink>(config_, pid_); break;
    }
    std::string error;
    if (!sink_->open(config_.file_path(pid_), error)) {
        report_not_created(config_.file_path(pid_), error, pid_);  // the launcher exits non-zero
        sink_.reset();
        sink_failed_ = true;
        return false;
    }
    sink_->set_progress(&progress_);
    timeline_ = std::make_unique<Timeline>(config_, pid_, *sink_);
    timeline_->seed_memory(memory_before_);
    return true;
}

void Writer::add(const Record &r) {
    if (sink_ == nullptr && !ensure_sink()) {
        ++lost_unopened_;
        return;
    }
    timeline_->add(r);
    ++window_records_[r.kind()];
}

void Writer::window(bool final) {
    std::vector<std::pair<uint8_t *, size_t>> full;
    {
        std::lock_guard<std::mutex> lock(queue_mutex_);
        full.swap(full_);
    }
    if (pending_.empty()) {
        // Room for every record these buffers can hold (an API call's is the smallest kind kept),
        // made while nothing is held: growing would copy every record held (120 bytes each).
        size_t bytes = 0;
        for (auto &entry : full) bytes += entry.second;
        pending_.reserve(bytes / sizeof(msptiActivityApi) + 1);
    }
    for (auto &[buffer, valid] : full) {
        progress_.fetch_add(1, std::memory_order_relaxed);
        msptiActivity *rec = nullptr;
        while (msptiActivityGetNextRecord(buffer, valid, &rec) == MSPTI_SUCCESS && rec != nullptr) {
            Record &r = pending_.emplace_back(Record::kUnset);  // decoded in place
            if (!r.assign(rec, seq_++)) {
                pending_.pop_back();
            } else if (r.kind() == MSPTI_ACTIVITY_KIND_MARKER) {
                // The buffer goes back below, before the record is written: keep its names.
                r.u.marker.name = names_.keep(r.u.marker.name);
                r.u.marker.domain = names_.keep(r.u.marker.domain);
            }
        }
    }
    {
        std::lock_guard<std::mutex> lock(queue_mutex_);
        for (auto &entry : full) free_.push_back(entry.first);
    }
    // With a capture range, hold records back two periods: its markers may come late.
    uint64_t watermark = UINT64_MAX;
    if (!final && !config_.capture_range.empty() && pending_.size() < kMaxPending)
        watermark = now_epoch_ns() - 2ull * config_.flush_ms * 1000000ull;
    ready_.clear();
    if (watermark == UINT64_MAX) {
        ready_.swap(pending_);
    } else {
        auto ready_end = std::partition(pending_.begin(), pending_.end(),
                                        [watermark](const Record &r) { return r.end < watermark; });
        ready_.assign(pending_.begin(), ready_end);
        pending_.erase(pending_.begin(), ready_end);
    }
    // Sorted through small keys (a Record is 120 bytes), grouped by kind: each kind comes nearly in
    // start order (API calls as they end, kernels as they finish), the mix of kinds does not.
    size_t at[MSPTI_ACTIVITY_KIND_COUNT + 1] = {};
    for (const Record &r : ready_) ++at[r.kind() + 1];
    bounds_.assign(1, 0);
    for (int k = 0; k < MSPTI_ACTIVITY_KIND_COUNT; ++k) {
        at[k + 1] += at[k];
        bounds_.push_back(at[k + 1]);
    }
    order_.resize(ready_.size());
    for (size_t i = 0; i < ready_.size(); ++i) {
        const Record &r = ready_[i];
        order_[at[r.kind()]++] = SortKey{r.start, (r.kind() == MSPTI_ACTIVITY_KIND_MARKER ? 0 : 1ull << 63) | r.seq,
                                         static_cast<uint32_t>(i)};
    }
    sort_nearly_sorted_groups(order_, bounds_, scratch_);
    for (const SortKey &k : order_) {
        const Record &r = ready_[k.index];
        if ((k.index & 4095) == 0) progress_.fetch_add(1, std::memory_order_relaxed);
        if (filter_.keep(r)) {
            add(r);
        } else if (r.kind() == MSPTI_ACTIVITY_KIND_MEMORY) {
            // Memory in use counts every allocation, kept or not.
            if (timeline_ != nullptr)
                timeline_->note_memory(r);
            else
                memory_before_[r.u.memory.deviceId] += Timeline::memory_delta(r);
        }
    }
    // HCCL records whose collective's launch decided them in this window (--capture-range).
    uint64_t now = now_epoch_ns();
    filter_.release(now, final, released_);
    for (const Record &r : released_) add(r);
    if (timeline_ == nullptr) return;
    Stats stats;
    const auto get_stats = libmspti_ext().get_stats;
    stats.per_kind = get_stats != nullptr;
    for (int k = 0; k < MSPTI_ACTIVITY_KIND_COUNT; ++k) {
        stats.kinds[k] = {};
        if (k != 0 && get_stats != nullptr) get_stats(static_cast<msptiActivityKind>(k), &stats.kinds[k]);
    }
    stats.filtered = filter_.filtered();
    for (int k = 0; k < MSPTI_ACTIVITY_KIND_COUNT; ++k) stats.kinds[k].dropped += lost_[k];
    stats.lost = lost_total_;
    sink_->set_window_records(window_records_);
    timeline_->end_window(stats, now, final);
    progress_.fetch_add(1, std::memory_order_relaxed);
    if (sink_->take_window_lost()) {
        window_lost_ = true;
        for (int k = 0; k < MSPTI_ACTIVITY_KIND_COUNT; ++k) {  // as the sink counted them (held records moved)
            lost_[k] += sink_->window_records(k);
            lost_total_ += sink_->window_records(k);
        }
    }
    for (auto &n : window_records_) n = 0;
}

void Writer::run() {
    for (;;) {
        timespec until = wall_clock_after(static_cast<int>(config_.flush_ms));
        while (sem_timedwait(&wake_, &until) != 0 && errno == EINTR) {}
        if (finishing_.load()) {
            if (signalled_.load()) msptiActivityFlushAll(1);  // the handler's thread cannot
            window(true);
            if (sink_ != nullptr) {
                sink_->close();
                if (window_lost_) report_loss_total(config_.file_path(pid_), lost_total_, sink_->final_stats_written());
            } else if (sink_failed_) {
                report_loss_total(config_.file_path(pid_), lost_unopened_, false);
            }
            if (names_.escaped() != 0)
                std::fprintf(stderr,
                             "mspti-trace: %llu marker names of pid %u were not valid UTF-8; "
                             "written with \\xNN in place of each bad byte\n",
                             static_cast<unsigned long long>(names_.escaped()), pid_);
            {
                std::lock_guard<std::mutex> lock(queue_mutex_);
                finished_ = true;
            }
            sem_post(&done_);
            return;
        }
        if (sync_.exchange(false)) {
            msptiActivityFlushAll(1);  // the handler's thread cannot
            window(false);
            sem_post(&synced_);
            continue;
        }
        window(false);
    }
}

}  // namespace mspti_trace
