#include "monitor/delivery_thread.h"

#include <cxxabi.h>
#include <pthread.h>

#include <cstdio>
#include <exception>
#include <new>
#include <system_error>

#include "monitor/dispatcher.h"

namespace mspti::detail {

namespace {

thread_local bool t_delivery = false;

template <typename F>
void run_hook(F &&f, const char *which) {
    try {
        f();
    } catch (abi::__forced_unwind &) {
        throw;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "[mspti] delivery thread hook %s raised an exception: %s\n", which, e.what());
    } catch (...) {
        std::fprintf(stderr, "[mspti] delivery thread hook %s raised an exception of unknown type\n", which);
    }
}

}  // namespace

bool DeliveryThread::on_thread() { return t_delivery; }

// ---- lifecycle -------------------------------------------------------------------------------

bool DeliveryThread::spawn_locked(std::string *error) {
    hooks_started_ = false;
    try {
        thread_ = std::thread(&DeliveryThread::main, this, hooks_.load(std::memory_order_acquire));
    } catch (const std::system_error &e) {
        if (error != nullptr) *error = e.what();
        return false;
    }
    state_ = State::Running;
    restart_in_child_ = false;
    return true;
}

bool DeliveryThread::start(std::string *error) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (state_ == State::Exiting) {
        state_ = State::Running;  // the previous thread had not left yet: keep it
    } else if (state_ == State::Exited) {
        std::thread old = std::move(thread_);
        state_ = State::None;
        lock.unlock();
        old.join();
        lock.lock();
    }
    return state_ != State::None || spawn_locked(error);
}

void DeliveryThread::wind_down() {
    std::lock_guard<std::mutex> lock(mutex_);
    restart_in_child_ = false;
    if (state_ == State::Running) {
        state_ = State::Exiting;
        work_cv_.notify_all();
    }
}

bool DeliveryThread::enqueue(uint8_t *data, size_t size, size_t valid) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (restart_in_child_ && state_ == State::None && !exiting_) spawn_locked(nullptr);
    if (exiting_ || (state_ != State::Running && state_ != State::Exiting)) return false;
    ++enqueued_;
    queue_.push_back(Pending{data, size, valid, enqueued_});
    work_cv_.notify_one();
    return true;
}

uint64_t DeliveryThread::enqueued() {
    std::lock_guard<std::mutex> lock(mutex_);
    return enqueued_;
}

uint64_t DeliveryThread::publish(const std::function<void(Registry &next, uint64_t processed)> &edit) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto next = std::make_shared<Registry>(*registry_);
    ++next->version;
    edit(*next, processed_);
    const uint64_t version = next->version;
    registry_ = std::move(next);
    return version;
}

void DeliveryThread::mark_stuck() {
    std::lock_guard<std::mutex> lock(mutex_);
    stuck_ = true;
}

// ---- waiting for the thread ------------------------------------------------------------------

bool DeliveryThread::wait_delivered(uint64_t target, int64_t timeout_ms) {
    std::unique_lock<std::mutex> lock(mutex_);
    auto done = [&] { return processed_ >= target || gone_locked(); };
    if (timeout_ms < 0) {
        done_cv_.wait(lock, done);
        return true;
    }
    return done_cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), done);
}

bool DeliveryThread::wait_not_using(uint64_t version, int64_t timeout_ms) {
    std::unique_lock<std::mutex> lock(mutex_);
    auto done = [&] { return !busy_ || busy_version_ >= version || gone_locked(); };
    if (timeout_ms < 0) {
        done_cv_.wait(lock, done);
        return true;
    }
    return done_cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), done);
}

// The Python bindings attach the thread to the interpreter in on_thread_start(). CPython 3.11's
// tracemalloc crashes when a thread creates its thread state while another thread stops tracing
// (its allocator hook then writes to freed tables; fixed in later CPythons): start() returns only
// once the thread is attached, so that a program's own tracemalloc calls after start() cannot race
// with it. Bounded (the hook may wait for an interpreter lock the caller's program holds).
void DeliveryThread::wait_started() {
    if (t_delivery) return;
    std::unique_lock<std::mutex> lock(mutex_);
    done_cv_.wait_for(lock, std::chrono::seconds(10),
                      [&] { return hooks_started_ || exiting_ || state_ != State::Running; });
}

void DeliveryThread::join_if_exited() {
    std::thread finished;
    {
        std::unique_lock<std::mutex> lock(mutex_);
        done_cv_.wait(lock, [&] { return state_ != State::Exiting || exiting_; });
        if (state_ == State::Exited && !exiting_) {
            finished = std::move(thread_);
            state_ = State::None;
        }
    }
    if (finished.joinable()) finished.join();
}

bool DeliveryThread::join_if_exited_until(std::chrono::steady_clock::time_point deadline) {
    std::thread finished;
    {
        std::unique_lock<std::mutex> lock(mutex_);
        if (!done_cv_.wait_until(lock, deadline, [&] { return state_ != State::Exiting || exiting_; })) return false;
        if (state_ == State::Exited && !exiting_) {
            finished = std::move(thread_);
            state_ = State::None;
        }
    }
    if (finished.joinable()) finished.join();  // only its on_thread_end hook is left to run
    return true;
}

void DeliveryThread::at_exit() {
    std::thread finished;
    {
        std::unique_lock<std::mutex> lock(mutex_);
        exiting_ = true;
        delivery_cut().store(true, std::memory_order_relaxed);  // the buffer in progress stops early
        work_cv_.notify_all();
        done_cv_.notify_all();
        // exit() from a callback, no thread, or one stop_all() already found stuck in a callback
        if (t_delivery || state_ == State::None || stuck_) return;
        // The thread finishes the callback in progress and leaves. One stuck in a callback (waiting
        // for something the exiting thread holds) must not hang the exit: wait a bounded time.
        done_cv_.wait_for(lock, std::chrono::seconds(2), [&] { return state_ == State::Exited; });
        if (state_ != State::Exited) return;  // left running; the session is never destroyed
        finished = std::move(thread_);
        state_ = State::None;
    }
    finished.join();
}

// ---- the thread ------------------------------------------------------------------------------

void DeliveryThread::finish_buffer(const Pending &p, DeliveryThreadHooks *hooks) {
    // A binding may still reference the memory (a batch kept past its callback): then it owns it.
    bool keep = false;
    if (hooks != nullptr) run_hook([&] { keep = hooks->keep_buffer(p.data); }, "keep_buffer");
    if (keep)
        pool_.disown(p.data, p.size);
    else
        pool_.recycle(p.data, p.size);
}

void DeliveryThread::main(DeliveryThreadHooks *hooks) {
    t_delivery = true;
    pthread_setname_np(pthread_self(), "mspti_delivery");
    if (hooks != nullptr) run_hook([&] { hooks->on_thread_start(); }, "on_thread_start");
    {
        std::lock_guard<std::mutex> lock(mutex_);
        hooks_started_ = true;
        done_cv_.notify_all();
    }

    // If the thread is unwound (cancelled from inside a callback), leave the state consistent.
    struct Unwound {
        DeliveryThread &t;
        bool normal = false;
        ~Unwound() {
            if (normal) return;
            std::deque<Pending> left;
            {
                std::lock_guard<std::mutex> lock(t.mutex_);
                left.swap(t.queue_);
                t.processed_ = t.enqueued_;
                t.busy_ = false;
                t.busy_buffer_ = Pending{};
                t.state_ = State::Exited;
                t.done_cv_.notify_all();
            }
            for (const Pending &p : left) t.pool_.recycle(p.data, p.size);
        }
    } unwound{*this};

    std::deque<Pending> left;
    std::shared_ptr<const Registry> last;
    {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            work_cv_.wait(lock, [&] { return !queue_.empty() || state_ != State::Running || exiting_; });
            if (exiting_) break;
            if (queue_.empty()) {
                if (state_ == State::Exiting) break;
                continue;
            }
            Pending p = queue_.front();
            queue_.pop_front();
            std::shared_ptr<const Registry> reg = registry_;
            busy_ = true;
            busy_buffer_ = p;
            busy_version_ = reg->version;
            lock.unlock();
            if (hooks != nullptr) run_hook([&] { hooks->on_buffer_begin(); }, "on_buffer_begin");
            dispatch_buffer(p.data, p.valid, p.seq, *reg);
            lock.lock();
            busy_buffer_ = Pending{};  // ours to recycle now (a child forked from here must not)
            lock.unlock();
            finish_buffer(p, hooks);
            if (hooks != nullptr) run_hook([&] { hooks->on_buffer_end(); }, "on_buffer_end");
            reg.reset();  // may destroy detached subscriptions: not under our lock
            lock.lock();
            busy_ = false;
            stuck_ = false;  // it came back
            ++processed_;
            done_cv_.notify_all();
        }
        left.swap(queue_);  // only when the process exits
        if (left.empty()) {
            // Decided under the same lock as leaving: a start() now sees Exited and starts a new thread.
            state_ = State::Exited;
            done_cv_.notify_all();
        } else {
            last = registry_;
        }
    }
    if (!left.empty()) {
        // The process exits: what is still queued is counted as dropped (delivery_cut() is set,
        // so no callback runs), then nobody waits for it any more.
        for (const Pending &p : left) {
            dispatch_buffer(p.data, p.valid, p.seq, *last);
            pool_.recycle(p.data, p.size);
        }
        std::lock_guard<std::mutex> lock(mutex_);
        processed_ += left.size();
        state_ = State::Exited;
        done_cv_.notify_all();
    }
    last.reset();
    unwound.normal = true;
    if (hooks != nullptr) run_hook([&] { hooks->on_thread_end(); }, "on_thread_end");
}

// ---- fork ------------------------------------------------------------------------------------

void DeliveryThread::restart_after_fork() {
    // Only the forking thread exists here. The thread is gone: forget its handle (it names a
    // thread of the parent) and start a new one with the child's first buffer.
    std::deque<Pending> parents;
    parents.swap(queue_);
    if (busy_buffer_.data != nullptr) parents.push_back(busy_buffer_);
    busy_buffer_ = Pending{};
    busy_ = false;
    // Subscriptions the parent's thread was in: nobody is in them here (a stop() in the child
    // would wait for it forever).
    for (const auto *lists : {&registry_->batch, &registry_->run, &registry_->record})
        for (const SubList &list : *lists)
            for (const auto &sub : list) sub->reset_after_fork();
    processed_ = enqueued_;
    if (state_ != State::None) {
        new (&thread_) std::thread();
        restart_in_child_ = state_ == State::Running && !exiting_;
        state_ = State::None;
    }
    // Waiters counted in these belong to the parent's threads.
    new (&work_cv_) std::condition_variable();
    new (&done_cv_) std::condition_variable();
    mutex_.unlock();
    for (const Pending &p : parents) pool_.recycle(p.data, p.size);
}

}  // namespace mspti::detail
