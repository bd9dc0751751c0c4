// The activity engine's worker thread ("ActivityManager") as a thread: started on first need,
// woken by producers and settings, stopped at process exit, forgotten in a forked child. What the
// thread does each round (drain, hand buffers back, ask ahead of need) is the engine's `body`.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace mspti {

class EngineWorker {
public:
    using Fn = void (*)();
    // `body`: the thread's loop (it calls sleep() between rounds and returns once that is false).
    // `at_exit`: registered with atexit() at the first start (inherited by forked children).
    EngineWorker(Fn body, Fn at_exit) : body_(body), at_exit_(at_exit) {}
    EngineWorker(const EngineWorker &) = delete;
    EngineWorker &operator=(const EngineWorker &) = delete;

    // Callbacks are registered: a worker should run; starts it if none runs.
    void start();
    // Starts the worker if one is wanted and none runs (a forked child's first record).
    void ensure() {
        if (__builtin_expect(!running_.load(std::memory_order_relaxed), 0) && wanted_.load(std::memory_order_relaxed))
            start();
    }
    // Producers: there is work (full buffers, a filling ring). Dekker-style with sleep() (both
    // sides sequentially consistent): either the worker sees the flag before it sleeps, or the
    // producer sees it sleeping and wakes it. No wake-up is lost.
    void nudge() {
        ensure();
        work_pending_.store(true);
        if (sleeping_.load()) wake();
    }
    // Wakes the worker for its next round now (a setting changed).
    void wake();

    // On the worker: what producers signal from now on is handled next round.
    void begin_round() { work_pending_.store(false); }
    // On the worker: whether it was asked to stop.
    bool stopping();
    // On the worker: sleeps until woken, work is pending or `timeout` passed; false if it must stop.
    bool sleep(std::chrono::milliseconds timeout);

    // Stops the worker (process exit). Waits a bounded time for a round in progress.
    void shutdown();

    // fork(): the wake lock is held across the fork. In the child the thread is gone: its handle
    // names a thread of the parent, so it is neither joined nor detached but forgotten; a new one
    // starts on first need.
    void lock_for_fork() { mutex_.lock(); }
    void unlock_after_fork() { mutex_.unlock(); }
    void forget_after_fork();

private:
    void start_locked();  // mutex_ held
    void run();

    const Fn body_;
    const Fn at_exit_;
    // Kept apart from the engine's consumer lock so that nudges never wait on a drain.
    std::mutex mutex_;
    std::condition_variable cv_;
    bool wake_pending_ = false;
    bool stopping_ = false;
    bool done_ = false;
    bool exit_handler_ = false;
    std::atomic<bool> sleeping_{false};
    std::atomic<bool> work_pending_{false};  // set by producers: full buffers or a filling ring
    std::thread thread_;
    std::atomic<bool> wanted_{false};  // callbacks registered: a worker should run
    std::atomic<bool> running_{false};  // false again in a forked child
};

}  // namespace mspti
