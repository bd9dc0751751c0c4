// The process-wide collection session behind every monitor: it owns the activity buffer pool
// registered with libmspti, the subscription, the enabled kinds, and the one delivery thread
// that runs every user callback. Built on the public msPTI C ABI only.
#pragma once

#include <array>
#include <chrono>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "mspti/mspti_activity.h"
#include "mspti/mspti_callback.h"
#include "monitor/buffer_pool.h"
#include "monitor/registry.h"
#include "monitor/subscription.h"


namespace mspti::detail {

/** What the session knows of one monitor object. */
struct MonitorCore {
    MonitorCore(int kind_value, const char *monitor_name) : kind(kind_value), name(monitor_name) {}
    const int kind;
    const char *const name;
    std::shared_ptr<Counters> counters = std::make_shared<Counters>();
    std::shared_ptr<Subscription> current;  // guarded by Session's control mutex
    std::atomic<bool> running{false};
    uint64_t dropped_at_creation = dropped_records(kind);  // stats() reports drops since then
    std::shared_ptr<OpenRangeTable> open_ranges;  // MstxMonitor: open range halves, kept across restarts
};

class Session {
public:
    /** The one session (leaked on purpose: the delivery thread may outlive static destruction). */
    static Session &instance();

    MsptiResult start(MonitorCore &core, std::shared_ptr<Subscription> sub);
    MsptiResult stop(MonitorCore &core);
    /** Stops every running monitor within one stop timeout (Monitor::stop_all()). */
    MsptiResult stop_all();
    MsptiResult flush_all();
    MsptiResult flush_period(uint32_t time_ms);
    MsptiResult set_buffer_size(int64_t megabytes);
    bool any_running();
    MsptiResult set_stop_timeout(int64_t milliseconds);
    int64_t stop_timeout() const { return stop_timeout_ms_.load(std::memory_order_relaxed); }
    void set_hooks(DeliveryThreadHooks *hooks) { hooks_.store(hooks, std::memory_order_release); }

    /** Whether the calling thread is the delivery thread. */
    static bool on_delivery_thread();

private:
    static constexpr int kKinds = MSPTI_ACTIVITY_KIND_COUNT;
    struct Pending {
        uint8_t *data;
        size_t size;
        size_t valid;
        uint64_t seq;  // 1 + the number of buffers enqueued before it
    };
    enum class ThreadState { None, Running, Exiting, Exited };

    Session();

    static void on_request(uint8_t **buffer, size_t *size, size_t *max_records);
    static void on_complete(uint8_t *buffer, size_t size, size_t valid);
    static void at_process_exit();

    // fork(): the parent keeps everything. The child keeps the running monitors (libmspti keeps
    // their kinds and callbacks) and gets a delivery thread of its own, started with its first
    // buffer; buffers queued for the parent's thread are recycled, not delivered (the parent
    // delivers them).
    static void fork_prepare();
    static void fork_parent();
    static void fork_child();
    // mutex_ held: starts the delivery thread; false if it could not be started.
    bool start_thread_locked();

    // control_ held:
    MsptiResult begin_locked(const char *who);
    MsptiResult restart_locked(MonitorCore &core, std::shared_ptr<Subscription> sub,
                               std::unique_lock<std::mutex> &control);
    void end_locked();

    void publish_locked(const std::shared_ptr<Subscription> &add, const Subscription *remove, uint64_t *version);
    // control_ held: takes a running monitor's subscription and turns its kind off if unused.
    std::shared_ptr<Subscription> take_locked(MonitorCore &core);
    // After take_locked(): hands the backlog to the delivery thread and
    // waits at most `backlog_ms` for it (-1: no bound), then detaches the subscriptions and waits
    // for their callbacks in progress and the thread's exit: until `deadline`, or without bound if
    // null. Returns false if a callback was still running at the deadline.
    bool finish_stop(std::vector<std::shared_ptr<Subscription>> &subs, int64_t backlog_ms,
                     const std::chrono::steady_clock::time_point *deadline,
                     std::chrono::steady_clock::duration grace_time = std::chrono::seconds(1));
    // Waits until no callback of `subs` is running: until `until`, or without bound if null. A
    // callback still running then is left running (never called again); returns false if one was.
    bool wait_callbacks_idle(const std::vector<std::shared_ptr<Subscription>> &subs,
                             const std::chrono::steady_clock::time_point *until);
    bool wait_delivered(uint64_t target, int64_t timeout_ms);
    bool wait_not_using(uint64_t version, int64_t timeout_ms);
    void join_if_exited();
    // After start(): waits (bounded) until the delivery thread's on_thread_start() hook returned.
    void wait_thread_started();
    // join_if_exited() until `deadline`; false if the thread had not left by then.
    bool join_if_exited_until(std::chrono::steady_clock::time_point deadline);
    void thread_main(DeliveryThreadHooks *hooks);
    void finish_buffer(const Pending &p, DeliveryThreadHooks *hooks);

    // ---- control (start/stop bookkeeping; msPTI calls are made under it, never waits for delivery)
    std::mutex control_;
    bool session_up_ = false;
    bool subscribed_ = false;
    msptiSubscriberHandle handle_ = nullptr;
    int active_ = 0;
    std::array<int, kKinds> kind_users_{};
    size_t buffer_bytes_ = size_t{8} << 20;
    std::vector<MonitorCore *> running_;  // started, not stopped (a core stops before it is destroyed)
    bool exit_handler_ = false;

    // ---- delivery state (short critical sections only)
    std::mutex mutex_;
    std::condition_variable work_cv_;  // delivery thread waits for buffers
    std::condition_variable done_cv_;  // flush/stop wait for progress
    std::deque<Pending> queue_;
    uint64_t enqueued_ = 0;
    uint64_t processed_ = 0;
    bool busy_ = false;  // a buffer is being delivered ...
    uint64_t busy_version_ = 0;  // ... with this registry snapshot (start() switching waits for it)
    std::shared_ptr<const Registry> registry_ = std::make_shared<Registry>();
    ThreadState state_ = ThreadState::None;
    std::thread thread_;
    bool exiting_ = false;
    bool restart_in_child_ = false;  // forked while the session was up: start a thread on demand
    bool stuck_ = false;  // stop_all() left the thread in a callback (the process exits)
    bool hooks_started_ = false;  // the thread's on_thread_start() hook has returned
    Pending busy_buffer_{};  // the buffer being delivered while busy_

    std::atomic<DeliveryThreadHooks *> hooks_{nullptr};
    std::atomic<int64_t> stop_timeout_ms_{2000};
    BufferPool pool_;
};

}  // namespace mspti::detail
