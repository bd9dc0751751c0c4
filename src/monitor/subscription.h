// One start() of one monitor: its callbacks and (MstxMonitor) its range pairing. The session's
// registry and the delivery thread's snapshots share it, so it outlives a monitor destroyed from
// inside its own callback; once `detached` is set its callbacks are never called again.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cxxabi.h>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <utility>

#include "mspti/mspti_activity.h"
#include "monitor/internal.h"
#include "monitor/range_table.h"


namespace mspti::detail {

/** Set when the process exits: the delivery thread hands nothing more to callbacks. */
inline std::atomic<bool> &delivery_cut() {
    static std::atomic<bool> cut{false};
    return cut;
}

class Subscription {
public:
    /** How a subscription's records are handed over: the registry keeps one list per way. */
    enum class Path { Batch, Run, Record };

    Subscription(int kind, const char *monitor_name, std::shared_ptr<Counters> counters, BatchCallback *batch,
                 Path path = Path::Batch)
        : kind_(kind), name_(monitor_name), counters_(std::move(counters)), batch_(batch), path_(path) {}
    virtual ~Subscription() = default;
    Subscription(const Subscription &) = delete;
    Subscription &operator=(const Subscription &) = delete;

    int kind() const { return kind_; }
    const char *name() const { return name_; }
    BatchCallback *batch() const { return batch_; }
    Path path() const { return path_; }
    bool detached() const { return detached_.load(std::memory_order_seq_cst); }
    /** No call starts after this; a call in progress may finish (wait_idle() waits for it). */
    void detach() { detached_.store(true, std::memory_order_seq_cst); }

    /**
     * Records of buffers up to `seq` (the session's enqueue count) that this subscription skips
     * once detached are counted as dropped: they were collected for it but never handed over.
     */
    void abandon_through(uint64_t seq) { abandoned_through_.store(seq, std::memory_order_relaxed); }
    uint64_t abandoned_through() const { return abandoned_through_.load(std::memory_order_relaxed); }
    /** Sequence number of the buffer being delivered. Delivery thread only. */
    void set_buffer(uint64_t seq) { buffer_seq_ = seq; }

    /**
     * Delivery thread, before a run of records: callbacks may be called until exit(). The
     * seq_cst store and load pair with detach() + wait_idle(): either the stopper sees the
     * subscription entered and waits, or this sees it detached. False if detached.
     */
    bool enter() {
        in_run_.store(true, std::memory_order_seq_cst);
        entered_ = true;
        if (detached_.load(std::memory_order_seq_cst)) {
            exit();
            return false;
        }
        return true;
    }

    /**
     * Whether a callback may be called now. Once detached (or the process exits) the
     * subscription leaves the run at once, so wait_idle() returns after one callback at most.
     * A plain load per record: the ordering is paid once per run, in enter().
     */
    bool live() {
        if (!entered_) return false;
        if (detached_.load(std::memory_order_relaxed) || delivery_cut().load(std::memory_order_relaxed)) {
            exit();
            return false;
        }
        return true;
    }

    /** Delivery thread, after a run (or when detached): no callback until the next enter(). */
    void exit() {
        if (!entered_) return;
        entered_ = false;
        in_run_.store(false, std::memory_order_seq_cst);
        if (waiting_.load(std::memory_order_seq_cst)) {
            std::lock_guard<std::mutex> lock(idle_mutex_);
            idle_cv_.notify_all();
        }
    }

    /**
     * Runs one user callback handing over `n` records if live(); otherwise the records count as
     * dropped when they belong to an abandoned stretch (skip()). Exceptions are counted and
     * reported, never propagated. Returns whether the callback ran.
     */
    template <typename F>
    bool call(F &&f, uint64_t n) {
        if (!live()) {
            skip(n);
            return false;
        }
        invoke(f, n);
        return true;
    }

    /**
     * call() once live() said yes: hands over `n` records whatever a detach() since then says.
     * For a caller that checked live() before deciding what to hand over: a second check could
     * turn "handed" into "skipped" after the caller counted the records as taken.
     */
    template <typename F>
    [[gnu::always_inline]] void invoke(F &&f, uint64_t n) {
        pending_ += n;
        try {
            f();
        } catch (abi::__forced_unwind &) {
            throw;  // thread cancellation (e.g. Python finalising): must unwind
        } catch (const CallbackErrorReported &) {
            counters_->callback_errors.fetch_add(1, std::memory_order_relaxed);
        } catch (const std::exception &e) {
            counters_->callback_errors.fetch_add(1, std::memory_order_relaxed);
            std::fprintf(stderr, "[mspti] %s callback raised an exception: %s\n", name_, e.what());
        } catch (...) {
            counters_->callback_errors.fetch_add(1, std::memory_order_relaxed);
            std::fprintf(stderr, "[mspti] %s callback raised an exception of unknown type\n", name_);
        }
    }

    /**
     * `n` records not handed over (detached, or the process exits): counted as dropped when the
     * buffer is part of an abandoned stretch or the delivery was cut. Returns whether counted.
     */
    bool skip(uint64_t n) {
        if (!dropping()) return false;
        counters_->dropped.fetch_add(n, std::memory_order_relaxed);
        unsettled_ += n;
        return true;
    }

    /**
     * Of the records skipped as dropped since the last settle(), `taken` (at most) were handed to
     * another subscription: libmspti counts those as delivered, so stats() adds them to its
     * per-kind count (the rest were reported to libmspti as discarded). Delivery thread only.
     */
    void settle(uint64_t taken) {
        if (unsettled_ == 0) return;
        const uint64_t n = taken < unsettled_ ? taken : unsettled_;
        if (n != 0) counters_->dropped_taken.fetch_add(n, std::memory_order_relaxed);
        unsettled_ = 0;
    }

    /** Whether records skipped now count as dropped (see skip()). */
    bool dropping() const {
        return buffer_seq_ <= abandoned_through() || delivery_cut().load(std::memory_order_relaxed);
    }

    /** Waits until the delivery thread has left this subscription's run, so that none of its
     *  callbacks runs or starts (after detach(); not from inside one). */
    void wait_idle() {
        waiting_.store(true, std::memory_order_seq_cst);
        std::unique_lock<std::mutex> lock(idle_mutex_);
        idle_cv_.wait(lock, [&] { return !in_run_.load(std::memory_order_seq_cst); });
    }

    /** wait_idle() until `deadline`; false if a callback was still running then. */
    bool wait_idle_until(std::chrono::steady_clock::time_point deadline) {
        waiting_.store(true, std::memory_order_seq_cst);
        std::unique_lock<std::mutex> lock(idle_mutex_);
        return idle_cv_.wait_until(lock, deadline, [&] { return !in_run_.load(std::memory_order_seq_cst); });
    }

    /**
     * In a forked child (only the forking thread exists): the parent's delivery thread is not in
     * this subscription's run, its uncounted records stay the parent's, and nobody waits.
     */
    void reset_after_fork() {
        entered_ = false;
        in_run_.store(false, std::memory_order_relaxed);
        waiting_.store(false, std::memory_order_relaxed);
        pending_ = 0;
        unsettled_ = 0;
        new (&idle_mutex_) std::mutex();
        new (&idle_cv_) std::condition_variable();
    }

    /** `n` records handed over (a run callback's tally). Delivery thread only. */
    void add_delivered(uint64_t n) { pending_ += n; }
    /** `n` exceptions of the user's callback, reported by the binding. */
    void add_errors(uint64_t n) {
        if (n != 0) counters_->callback_errors.fetch_add(n, std::memory_order_relaxed);
    }

    /** Makes the counts visible to stats(). Delivery thread only. */
    void publish() {
        if (pending_ != 0) {
            counters_->delivered.fetch_add(pending_, std::memory_order_relaxed);
            pending_ = 0;
        }
    }
    Counters &counters() { return *counters_; }

private:
    const int kind_;
    const char *const name_;
    std::shared_ptr<Counters> counters_;
    BatchCallback *const batch_;
    const Path path_;
    std::atomic<bool> detached_{false};
    std::atomic<bool> in_run_{false};  // entered: a callback may run (see enter())
    bool entered_ = false;  // delivery thread only
    std::atomic<bool> waiting_{false};
    std::atomic<uint64_t> abandoned_through_{0};
    uint64_t buffer_seq_ = 0;
    uint64_t pending_ = 0;
    uint64_t unsettled_ = 0;  // skipped as dropped, not yet settled
    std::mutex idle_mutex_;
    std::condition_variable idle_cv_;
};

/** Per-record subscription of KernelMonitor, HcclMonitor or CommunicationMonitor. */
template <typename Callback>
class RecordSubscription : public Subscription {
public:
    RecordSubscription(int kind, const char *monitor_name, std::shared_ptr<Counters> counters, Callback *cb,
                       std::unique_ptr<Callback> owned = nullptr)
        : Subscription(kind, monitor_name, std::move(counters), nullptr, Path::Record),
          cb_(cb),
          owned_(std::move(owned)) {}
    Callback *callback() const { return cb_; }

private:
    Callback *cb_;
    std::unique_ptr<Callback> owned_;
};

/**
 * Per-record subscription of a binding that builds its records a run at a time (the Java binding):
 * one call per run, whose tally (record_run_tally()) the session counts as per-record delivery.
 */
class RunSubscription : public Subscription {
public:
    RunSubscription(int kind, const char *monitor_name, std::shared_ptr<Counters> counters, RecordRunCallback *cb)
        : Subscription(kind, monitor_name, std::move(counters), nullptr, Path::Run), cb_(cb) {}
    RecordRunCallback *run_callback() const { return cb_; }

private:
    RecordRunCallback *cb_;
};

/**
 * Per-record subscription of MstxMonitor: marks, and ranges paired in the monitor's table, which
 * outlives the subscription so that a range open across stop() and start() pairs after the restart.
 * The table is only used on the delivery thread.
 */
class MstxSubscription : public Subscription {
public:
    MstxSubscription(const char *monitor_name, std::shared_ptr<Counters> counters, MarkCallback *mark,
                     RangeCallback *range, std::unique_ptr<MarkCallback> owned_mark,
                     std::unique_ptr<RangeCallback> owned_range, std::shared_ptr<OpenRangeTable> table)
        : Subscription(MSPTI_ACTIVITY_KIND_MARKER, monitor_name, std::move(counters), nullptr, Path::Record),
          mark_(mark),
          range_(range),
          owned_mark_(std::move(owned_mark)),
          owned_range_(std::move(owned_range)),
          table_(std::move(table)) {}

    /**
     * Takes one marker record: false when the subscription is no longer live, the record then
     * skipped (counted as dropped when abandoned). live() is asked once: the answer decides both
     * what the dispatcher counts and whether the callback runs, so that a detach() in between
     * cannot leave a record counted as taken but neither handed over nor dropped. Inlined, as is
     * invoke(): out of line, the per-record delivery took 31 more instructions a record than
     * before this check moved here; inlined, 10 fewer (one live() load and branch less).
     */
    [[gnu::always_inline]] bool on_marker(const MarkerData &m) {
        if (!live()) {
            skip(1);
            return false;
        }
        switch (static_cast<int>(m.flag)) {
        case MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS:
        case MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS_WITH_DEVICE:
            if (mark_ != nullptr) invoke([&] { mark_->on_record(m); }, 1);
            return true;
        case MSPTI_ACTIVITY_FLAG_MARKER_START:
        case MSPTI_ACTIVITY_FLAG_MARKER_START_WITH_DEVICE: pair(m, true); return true;
        case MSPTI_ACTIVITY_FLAG_MARKER_END:
        case MSPTI_ACTIVITY_FLAG_MARKER_END_WITH_DEVICE: pair(m, false); return true;
        default: return true;
        }
    }

private:
    void pair(const MarkerData &m, bool is_start) {
        if (range_ == nullptr) return;
        uint64_t evicted = 0;
        if (table_->add(m, is_start, scratch_, evicted)) invoke([&] { range_->on_record(scratch_); }, 1);
        if (evicted != 0) counters().unpaired_dropped.fetch_add(evicted, std::memory_order_relaxed);
    }

    MarkCallback *mark_;
    RangeCallback *range_;
    std::unique_ptr<MarkCallback> owned_mark_;
    std::unique_ptr<RangeCallback> owned_range_;
    std::shared_ptr<OpenRangeTable> table_;
    RangeMarkerData scratch_;
};

/** Adapts a std::function to a callback interface. */
template <typename Interface, typename Value>
class FunctionCallback : public Interface {
public:
    explicit FunctionCallback(std::function<void(const Value &)> f) : f_(std::move(f)) {}
    void on_record(const Value &v) override { f_(v); }

private:
    std::function<void(const Value &)> f_;
};

}  // namespace mspti::detail
