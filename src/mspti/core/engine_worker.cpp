#include "core/engine_worker.h"

#include <cstdlib>
#include <new>
#include <pthread.h>

namespace mspti {

void EngineWorker::start() {
    std::lock_guard<std::mutex> lock(mutex_);
    wanted_.store(true, std::memory_order_relaxed);
    start_locked();
}

void EngineWorker::start_locked() {
    if (running_.load(std::memory_order_relaxed) || stopping_) return;
    done_ = false;
    thread_ = std::thread([this] { run(); });
    pthread_setname_np(thread_.native_handle(), "ActivityManager");
    running_.store(true, std::memory_order_relaxed);
    if (!exit_handler_) {  // inherited by forked children, so registered once
        exit_handler_ = true;
        std::atexit(at_exit_);
    }
}

void EngineWorker::run() {
    body_();
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
    cv_.notify_all();
}

void EngineWorker::wake() {
    std::lock_guard<std::mutex> lock(mutex_);
    wake_pending_ = true;
    cv_.notify_one();
}

bool EngineWorker::stopping() {
    std::lock_guard<std::mutex> lock(mutex_);
    return stopping_;
}

bool EngineWorker::sleep(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (stopping_) return false;
    sleeping_.store(true);
    cv_.wait_for(lock, timeout, [this] { return wake_pending_ || stopping_ || work_pending_.load(); });
    sleeping_.store(false);
    wake_pending_ = false;
    return !stopping_;
}

void EngineWorker::shutdown() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!thread_.joinable() || stopping_) return;
    stopping_ = true;
    cv_.notify_all();
    if (thread_.get_id() == std::this_thread::get_id()) {
        thread_.detach();
        return;
    }
    // A worker stuck in a client callback (e.g. waiting for a lock the exiting thread holds)
    // must not hang the exit: wait a bounded time, then leave it.
    if (cv_.wait_for(lock, std::chrono::seconds(2), [this] { return done_; })) {
        lock.unlock();
        thread_.join();
    } else {
        thread_.detach();
    }
}

void EngineWorker::forget_after_fork() {
    new (&thread_) std::thread();
    running_.store(false, std::memory_order_relaxed);
    done_ = false;
    wake_pending_ = false;
    sleeping_.store(false);
    work_pending_.store(false);
    // It may count waiters that exist only in the parent: start it afresh.
    new (&cv_) std::condition_variable();
    mutex_.unlock();
}

}  // namespace mspti
