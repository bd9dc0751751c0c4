// One start() of one monitor: its callbacks and (MstxMonitor) its range pairing. The session's
// registry and the delivery thread's snapshots share it, so it outlives a monitor destroyed from
// inside its own callback; once `detached` is set its callbacks are never called again.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cxxabi.h>
#include <exception>
#include <functional>
#include <memory>
#include <utility>

#include "mspti/mspti_activity.h"
#include "monitor/internal.h"
#include "monitor/range_table.h"


namespace mspti::detail {

class Subscription {
public:
    Subscription(int kind, const char *monitor_name, std::shared_ptr<Counters> counters, BatchCallback *batch)
        : kind_(kind), name_(monitor_name), counters_(std::move(counters)), batch_(batch) {}
    virtual ~Subscription() = default;
    Subscription(const Subscription &) = delete;
    Subscription &operator=(const Subscription &) = delete;

    int kind() const { return kind_; }
    const char *name() const { return name_; }
    BatchCallback *batch() const { return batch_; }
    bool detached() const { return detached_.load(std::memory_order_relaxed); }
    void detach() { detached_.store(true, std::memory_order_relaxed); }

    /** Runs one user callback: exceptions are counted and reported, never propagated. */
    template <typename F>
    void call(F &&f) {
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

    /** Counts `n` records handed to the callback (published by publish()). */
    void count(uint64_t n) { pending_ += n; }
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
    std::atomic<bool> detached_{false};
    uint64_t pending_ = 0;
};

/** Per-record subscription of KernelMonitor, HcclMonitor or CommunicationMonitor. */
template <typename Callback>
class RecordSubscription : public Subscription {
public:
    RecordSubscription(int kind, const char *monitor_name, std::shared_ptr<Counters> counters, Callback *cb,
                       std::unique_ptr<Callback> owned = nullptr)
        : Subscription(kind, monitor_name, std::move(counters), nullptr), cb_(cb), owned_(std::move(owned)) {}
    Callback *callback() const { return cb_; }

private:
    Callback *cb_;
    std::unique_ptr<Callback> owned_;
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
        : Subscription(MSPTI_ACTIVITY_KIND_MARKER, monitor_name, std::move(counters), nullptr),
          mark_(mark), range_(range), owned_mark_(std::move(owned_mark)), owned_range_(std::move(owned_range)),
          table_(std::move(table)) {}

    void on_marker(const MarkerData &m) {
        switch (static_cast<int>(m.flag)) {
        case MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS:
        case MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS_WITH_DEVICE:
            if (mark_ != nullptr) {
                count(1);
                call([&] { mark_->on_record(m); });
            }
            return;
        case MSPTI_ACTIVITY_FLAG_MARKER_START:
        case MSPTI_ACTIVITY_FLAG_MARKER_START_WITH_DEVICE:
            pair(m, true);
            return;
        case MSPTI_ACTIVITY_FLAG_MARKER_END:
        case MSPTI_ACTIVITY_FLAG_MARKER_END_WITH_DEVICE:
            pair(m, false);
            return;
        default:
            return;
        }
    }

private:
    void pair(const MarkerData &m, bool is_start) {
        if (range_ == nullptr) return;
        uint64_t evicted = 0;
        if (table_->add(m, is_start, scratch_, evicted)) {
            count(1);
            call([&] { range_->on_record(scratch_); });
        }
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

