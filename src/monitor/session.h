// The process-wide collection session behind every monitor: control (start, stop, flush and the
// settings; the libmspti subscription, the enabled kinds, the running monitors). It owns the
// activity buffer pool registered with libmspti and the DeliveryThread that runs every user
// callback (through the Dispatcher), and asks them to do their part. Built on the public msPTI C
// ABI only.
#pragma once

#include <array>
#include <chrono>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "mspti/mspti_activity.h"
#include "mspti/mspti_callback.h"
#include "monitor/buffer_pool.h"
#include "monitor/delivery_thread.h"
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
    void set_hooks(DeliveryThreadHooks *hooks) { delivery_.set_hooks(hooks); }

    /** Whether the calling thread is the delivery thread. */
    static bool on_delivery_thread();

private:
    static constexpr int kKinds = MSPTI_ACTIVITY_KIND_COUNT;

    Session();

    static void on_request(uint8_t **buffer, size_t *size, size_t *max_records);
    static void on_complete(uint8_t *buffer, size_t size, size_t valid);
    static void at_process_exit();

    // fork(): the parent keeps everything. The child keeps the running monitors (libmspti keeps
    // their kinds and callbacks); each part resets itself: the delivery thread starts again with
    // the child's first buffer, and the buffers queued for the parent's thread are recycled, not
    // delivered (the parent delivers them).
    static void fork_prepare();
    static void fork_parent();
    static void fork_child();

    // control_ held:
    MsptiResult begin_locked(const char *who);
    MsptiResult restart_locked(MonitorCore &core, std::shared_ptr<Subscription> sub,
                               std::unique_lock<std::mutex> &control);
    void end_locked();

    // Publishes the delivery registry with `add` listed and `remove` unlisted (either may be null).
    void publish_locked(const std::shared_ptr<Subscription> &add, const Subscription *remove);
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

    std::atomic<int64_t> stop_timeout_ms_{2000};
    BufferPool pool_;
    DeliveryThread delivery_{pool_};  // after pool_, which it recycles into
};

}  // namespace mspti::detail
