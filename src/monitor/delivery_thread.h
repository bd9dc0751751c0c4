// The one thread that runs every user callback: the queue of full activity buffers libmspti hands
// back, the thread that takes them one by one to the Dispatcher (dispatch_buffer), the registry
// snapshot it delivers with, and the thread's lifecycle (start, leaving once the session ends,
// process exit, fork). The Session decides when it runs; this class only runs it.
#pragma once

#include <chrono>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "monitor/buffer_pool.h"
#include "monitor/registry.h"

namespace mspti::detail {

class DeliveryThread {
public:
    /** Buffers taken off the queue go back to `pool` (or to a binding that keeps one). */
    explicit DeliveryThread(BufferPool &pool) : pool_(pool) {}
    DeliveryThread(const DeliveryThread &) = delete;
    DeliveryThread &operator=(const DeliveryThread &) = delete;

    /** Whether the calling thread is the delivery thread. */
    static bool on_thread();

    /** Hooks for threads started from now on (a binding attaches its runtime there). */
    void set_hooks(DeliveryThreadHooks *hooks) { hooks_.store(hooks, std::memory_order_release); }

    /**
     * The session starts: keeps a thread that had not left yet, or joins one that left and starts
     * a new one. False, with the reason in `*error`, if no thread could be started.
     */
    bool start(std::string *error);
    /** The session ended: the thread delivers what is queued and leaves. */
    void wind_down();

    /**
     * libmspti handed back a full buffer: queued for the thread (in a forked child, whose thread
     * starts with its first buffer, after starting it). False if no thread will deliver it: the
     * caller recycles it.
     */
    bool enqueue(uint8_t *data, size_t size, size_t valid);
    /** Buffers queued so far (a target for wait_delivered()). */
    uint64_t enqueued();

    /**
     * Publishes a new registry: a copy of the current one with its version raised, changed by
     * `edit`, which also gets the number of buffers delivered so far. Returns the new version.
     */
    uint64_t publish(const std::function<void(Registry &next, uint64_t processed)> &edit);

    /** Waits until `target` buffers were delivered (or no thread runs): at most `timeout_ms`, -1: no bound. */
    bool wait_delivered(uint64_t target, int64_t timeout_ms);
    /** Waits until no buffer is being delivered with a registry older than `version` (bounded as above). */
    bool wait_not_using(uint64_t version, int64_t timeout_ms);
    /** After start(): waits (bounded) until the thread's on_thread_start() hook returned. */
    void wait_started();
    /** After wind_down(): joins the thread once it left (without bound). */
    void join_if_exited();
    /** As join_if_exited(), until `deadline`; false if the thread had not left by then. */
    bool join_if_exited_until(std::chrono::steady_clock::time_point deadline);
    /** A stop left the thread in a callback that did not return: the exit does not wait for it again. */
    void mark_stuck();

    /** Process exit: what is queued is counted as dropped; waits a bounded time for the thread to leave. */
    void at_exit();

    // fork(): the mutex is held across the fork. In the child the thread is gone: its queue (the
    // parent delivers it) goes back to the pool, the subscriptions it was in are left, and a new
    // thread starts with the child's first buffer if one ran at the fork.
    void lock_for_fork() { mutex_.lock(); }
    void unlock_after_fork() { mutex_.unlock(); }
    void restart_after_fork();

private:
    struct Pending {
        uint8_t *data;
        size_t size;
        size_t valid;
        uint64_t seq;  // 1 + the number of buffers enqueued before it
    };
    enum class State { None, Running, Exiting, Exited };

    // mutex_ held, state_ None: starts the thread; false (and why) if it could not be started.
    bool spawn_locked(std::string *error);
    void main(DeliveryThreadHooks *hooks);
    void finish_buffer(const Pending &p, DeliveryThreadHooks *hooks);
    // Whether waiters for delivery may stop waiting: no thread will deliver any more.
    bool gone_locked() const { return exiting_ || (state_ != State::Running && state_ != State::Exiting); }

    BufferPool &pool_;
    std::atomic<DeliveryThreadHooks *> hooks_{nullptr};

    // Short critical sections only; never held while a callback runs.
    std::mutex mutex_;
    std::condition_variable work_cv_;  // the thread waits for buffers
    std::condition_variable done_cv_;  // flush/stop wait for progress
    std::deque<Pending> queue_;
    uint64_t enqueued_ = 0;
    uint64_t processed_ = 0;
    bool busy_ = false;  // a buffer is being delivered ...
    uint64_t busy_version_ = 0;  // ... with this registry snapshot (start() switching waits for it)
    Pending busy_buffer_{};  // the buffer being delivered while busy_
    std::shared_ptr<const Registry> registry_ = std::make_shared<Registry>();
    State state_ = State::None;
    std::thread thread_;
    bool exiting_ = false;
    bool restart_in_child_ = false;  // forked while a thread ran: start one on demand
    bool stuck_ = false;  // stop_all() left the thread in a callback (the process exits)
    bool hooks_started_ = false;  // the thread's on_thread_start() hook has returned
};

}  // namespace mspti::detail
