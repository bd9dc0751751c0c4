#include "monitor/session.h"

#include <pthread.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <new>
#include <cstdio>
#include <cstdlib>
#include <system_error>

#include "monitor/convert.h"
#include "monitor/dispatcher.h"
#include "monitor/libmspti.h"

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

// MSPTI_STOP_TIMEOUT_MS: how long stop() waits for the backlog (ms; negative: no bound).
int64_t stop_timeout_from_env(int64_t fallback) {
    const char *text = std::getenv("MSPTI_STOP_TIMEOUT_MS");
    if (text == nullptr || *text == '\0') return fallback;
    char *end = nullptr;
    errno = 0;
    long long v = std::strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v > Monitor::kMaxStopTimeoutMs) {
        std::fprintf(stderr,
                     "[mspti] MSPTI_STOP_TIMEOUT_MS=%s is not a number of milliseconds up to %lld; using %lld\n", text,
                     static_cast<long long>(Monitor::kMaxStopTimeoutMs), static_cast<long long>(fallback));
        return fallback;
    }
    return v < 0 ? -1 : static_cast<int64_t>(v);
}

}  // namespace

Session::Session() : stop_timeout_ms_(stop_timeout_from_env(Monitor::kDefaultStopTimeoutMs)) {}

Session &Session::instance() {
    // Leaked on purpose: libmspti may call back, and the delivery thread may run, during exit.
    static Session *session = [] {
        auto *s = new Session();
        // Registered after libmspti's own handlers, so ours prepare first: start() holds control_
        // while it calls into libmspti, and the locks are taken in that order.
        pthread_atfork(&Session::fork_prepare, &Session::fork_parent, &Session::fork_child);
        return s;
    }();
    return *session;
}

bool Session::on_delivery_thread() { return t_delivery; }

// ---- libmspti's buffer callbacks ------------------------------------------------------------

void Session::on_request(uint8_t **buffer, size_t *size, size_t *max_records) {
    *max_records = 0;
    size_t bytes = 0;
    *buffer = instance().pool_.acquire(bytes);
    *size = bytes;
}

void Session::on_complete(uint8_t *buffer, size_t size, size_t valid) {
    if (buffer == nullptr) return;
    Session &s = instance();
    {
        std::lock_guard<std::mutex> lock(s.mutex_);
        if (s.restart_in_child_ && s.state_ == ThreadState::None && !s.exiting_) s.start_thread_locked();
        if (!s.exiting_ && (s.state_ == ThreadState::Running || s.state_ == ThreadState::Exiting)) {
            ++s.enqueued_;
            s.queue_.push_back(Pending{buffer, size, valid, s.enqueued_});
            s.work_cv_.notify_one();
            return;
        }
    }
    s.pool_.recycle(buffer, size);  // nobody to deliver to
}

// ---- session lifetime ----------------------------------------------------------------------

MsptiResult Session::begin_locked(const char *who) {
    if (session_up_) return MsptiResult::MSPTI_SUCCESS;
    pool_.activate(buffer_bytes_);
    const Libmspti &lib = libmspti();
    if (!lib.loaded) return fail(MsptiResult::MSPTI_ERROR_INNER, "%s.start: %s", who, lib.error.c_str());
    msptiResult r = lib.register_callbacks(&Session::on_request, &Session::on_complete);
    if (r != MSPTI_SUCCESS) {
        pool_.deactivate();
        return fail(static_cast<MsptiResult>(r), "%s.start: msptiActivityRegisterCallbacks returned %d (%s)", who,
                    static_cast<int>(r), result_text(r));
    }
    r = lib.subscribe(&handle_, nullptr, nullptr);
    if (r == MSPTI_SUCCESS) {
        subscribed_ = true;
    } else if (r == MSPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        subscribed_ = false;  // the application subscribed itself: collection is initialised already
    } else {
        pool_.deactivate();
        return fail(static_cast<MsptiResult>(r), "%s.start: msptiSubscribe returned %d (%s)", who, static_cast<int>(r),
                    result_text(r));
    }
    if (!exit_handler_) {
        exit_handler_ = true;
        std::atexit(&Session::at_process_exit);
    }
    std::unique_lock<std::mutex> lock(mutex_);
    if (state_ == ThreadState::Exiting) {
        state_ = ThreadState::Running;  // the previous thread had not left yet: keep it
    } else if (state_ == ThreadState::Exited) {
        std::thread old = std::move(thread_);
        state_ = ThreadState::None;
        lock.unlock();
        old.join();
        lock.lock();
    }
    if (state_ == ThreadState::None) {
        hooks_started_ = false;
        try {
            thread_ = std::thread(&Session::thread_main, this, hooks_.load(std::memory_order_acquire));
        } catch (const std::system_error &e) {
            lock.unlock();
            if (subscribed_) libmspti().unsubscribe(handle_);
            subscribed_ = false;
            pool_.deactivate();
            return fail(MsptiResult::MSPTI_ERROR_INNER, "%s.start: could not start the delivery thread: %s", who,
                        e.what());
        }
        state_ = ThreadState::Running;
    }
    session_up_ = true;
    return MsptiResult::MSPTI_SUCCESS;
}

void Session::end_locked() {
    if (subscribed_) libmspti().unsubscribe(handle_);
    subscribed_ = false;
    handle_ = nullptr;
    pool_.deactivate();
    session_up_ = false;
    std::lock_guard<std::mutex> lock(mutex_);
    restart_in_child_ = false;
    if (state_ == ThreadState::Running) {
        state_ = ThreadState::Exiting;
        work_cv_.notify_all();
    }
}

void Session::publish_locked(const std::shared_ptr<Subscription> &add, const Subscription *remove, uint64_t *version) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto next = std::make_shared<Registry>(*registry_);
    ++next->version;
    if (add) next->list_of(*add).push_back(add);
    if (remove != nullptr) {
        SubList &list = next->list_of(*remove);
        for (auto it = list.begin(); it != list.end(); ++it) {
            if (it->get() == remove) {
                // Still listed while buffers it abandoned are queued (see below).
                if (remove->abandoned_through() <= processed_) list.erase(it);
                break;
            }
        }
    }
    // Stops that ran out of time leave their subscription listed (detached) so that the rest of
    // its backlog is counted as dropped; forget it once that backlog has gone through.
    for (auto *lists : {&next->batch, &next->run, &next->record}) {
        for (SubList &list : *lists) {
            for (auto it = list.begin(); it != list.end();) {
                if ((*it)->detached() && (*it)->abandoned_through() <= processed_ && it->get() != add.get())
                    it = list.erase(it);
                else
                    ++it;
            }
        }
    }
    if (version != nullptr) *version = next->version;
    registry_ = std::move(next);
}

MsptiResult Session::start(MonitorCore &core, std::shared_ptr<Subscription> sub) {
    std::unique_lock<std::mutex> control(control_);
    if (core.current) return restart_locked(core, std::move(sub), control);
    MsptiResult r = begin_locked(core.name);
    if (r != MsptiResult::MSPTI_SUCCESS) return r;
    const int kind = core.kind;
    if (kind_users_[kind] == 0) {
        msptiResult e = libmspti().enable(static_cast<msptiActivityKind>(kind));
        if (e != MSPTI_SUCCESS) {
            bool ended = false;
            if (active_ == 0) {
                end_locked();
                ended = true;
            }
            control.unlock();
            if (ended && !t_delivery) join_if_exited();
            if (e == MSPTI_ERROR_WITHOUT_LD_PRELOAD)
                return fail(MsptiResult::MSPTI_ERROR_WITHOUT_LD_PRELOAD,
                            "%s.start: collecting %s needs libmspti.so to interpose the runtime (load it with "
                            "LD_PRELOAD); nothing was started",
                            core.name, kind_name(kind));
            return fail(static_cast<MsptiResult>(e), "%s.start: msptiActivityEnable(%s) returned %d (%s)", core.name,
                        kind_name(kind), static_cast<int>(e), result_text(e));
        }
    }
    ++kind_users_[kind];
    ++active_;
    running_.push_back(&core);
    core.current = sub;
    core.running.store(true, std::memory_order_release);
    publish_locked(sub, nullptr, nullptr);
    control.unlock();
    wait_thread_started();
    return MsptiResult::MSPTI_SUCCESS;
}

namespace {
// How long stop_all() waits, past its deadline, for the callbacks in progress to return and the
// delivery thread to leave: it only finishes the calls in progress, skips the rest of the buffer
// (the monitors are detached) and runs its hooks. A callback that takes longer is left running.
constexpr auto kExitGrace = std::chrono::seconds(1);
// How long stop() waits, past its timeout, for a callback in progress: generous, since a callback
// that is only slow (or descheduled on a loaded machine) must not be abandoned.
constexpr auto kStopGrace = std::chrono::seconds(5);
}  // namespace

// A running monitor switches to the new subscription, as msPTI's start() replaces the callback.
// Its kind stays enabled. The buffer being delivered finishes with the old callback (its registry
// snapshot), so no record goes to both or to neither; then the old one is never called again.
MsptiResult Session::restart_locked(MonitorCore &core, std::shared_ptr<Subscription> sub,
                                    std::unique_lock<std::mutex> &control) {
    std::shared_ptr<Subscription> old = std::move(core.current);
    uint64_t version = 0;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        auto next = std::make_shared<Registry>(*registry_);
        ++next->version;
        SubList &from = next->list_of(*old);
        auto it = std::find(from.begin(), from.end(), old);
        if (it != from.end() && old->path() == sub->path()) {
            *it = sub;  // keeps its place in the delivery order
        } else {
            if (it != from.end()) from.erase(it);
            next->list_of(*sub).push_back(sub);
        }
        version = next->version;
        registry_ = std::move(next);
    }
    core.current = std::move(sub);
    control.unlock();
    // From a callback the rest of the current buffer still goes to the old subscription.
    if (t_delivery) return MsptiResult::MSPTI_SUCCESS;
    const int64_t timeout = stop_timeout();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(std::max<int64_t>(timeout, 0));
    if (!wait_not_using(version, timeout)) {
        // The buffer in progress takes longer than a stop may wait: the old callback is not
        // given the rest of it, and those records count as dropped (as a stop's backlog).
        std::lock_guard<std::mutex> lock(mutex_);
        old->abandon_through(enqueued_);
    }
    old->detach();
    // As stop(): a call of the old callback that never returns does not hold start() past the stop
    // timeout and its grace (no bound with a negative timeout). The new callback is in place.
    const auto until = deadline + kStopGrace;
    if (!wait_callbacks_idle({old}, timeout < 0 ? nullptr : &until)) {
        return fail(MsptiResult::MSPTI_ERROR_INNER,
                    "%s.start: the previous callback was still running 5 s after the stop timeout (%lld ms); the "
                    "monitor runs with the new callback, the previous one was left running",
                    core.name, static_cast<long long>(timeout));
    }
    return MsptiResult::MSPTI_SUCCESS;
}

std::shared_ptr<Subscription> Session::take_locked(MonitorCore &core) {
    std::shared_ptr<Subscription> sub = std::move(core.current);
    core.current.reset();
    core.running.store(false, std::memory_order_release);
    running_.erase(std::remove(running_.begin(), running_.end(), &core), running_.end());
    if (--kind_users_[core.kind] == 0) libmspti().disable(static_cast<msptiActivityKind>(core.kind));
    --active_;
    return sub;
}


bool Session::finish_stop(std::vector<std::shared_ptr<Subscription>> &subs, int64_t backlog_ms,
                          const std::chrono::steady_clock::time_point *deadline,
                          std::chrono::steady_clock::duration grace_time) {
    const bool inline_stop = t_delivery;  // from a callback: never wait for ourselves
    // Everything collected so far goes to the delivery queue; wait, for a bounded time, until it
    // has been delivered. What is still queued for these monitors then is counted as dropped.
    if (libmspti().loaded) libmspti().flush_all(1);
    uint64_t target;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        target = enqueued_;
    }
    for (const auto &sub : subs) sub->abandon_through(target);
    if (!inline_stop) wait_delivered(target, backlog_ms);
    bool ended = false;
    {
        std::lock_guard<std::mutex> control(control_);
        for (const auto &sub : subs) {
            sub->detach();
            publish_locked(nullptr, sub.get(), nullptr);
        }
        if (active_ == 0 && session_up_) {
            end_locked();
            ended = true;
        }
    }
    if (inline_stop) return true;
    // A callback in progress finishes; none starts after detach().
    const auto grace = deadline == nullptr ? std::chrono::steady_clock::time_point{}
                                           : std::max(*deadline, std::chrono::steady_clock::now()) + grace_time;
    const bool idle = wait_callbacks_idle(subs, deadline == nullptr ? nullptr : &grace);
    if (ended) {
        if (deadline == nullptr)
            join_if_exited();
        else if (idle)  // a thread still in a callback would not leave: do not wait for it
            join_if_exited_until(grace);
    }
    return idle;
}

bool Session::wait_callbacks_idle(const std::vector<std::shared_ptr<Subscription>> &subs,
                                  const std::chrono::steady_clock::time_point *until) {
    bool idle = true;
    for (const auto &sub : subs) {
        if (until == nullptr)
            sub->wait_idle();
        else
            idle = sub->wait_idle_until(*until) && idle;
    }
    if (!idle) {
        std::lock_guard<std::mutex> lock(mutex_);
        stuck_ = true;  // the exit handler need not wait for it again
    }
    return idle;
}

MsptiResult Session::stop(MonitorCore &core) {
    std::vector<std::shared_ptr<Subscription>> subs;
    {
        std::lock_guard<std::mutex> control(control_);
        if (!core.current) return MsptiResult::MSPTI_SUCCESS;
        subs.push_back(take_locked(core));
    }
    const int64_t timeout = stop_timeout();
    if (timeout < 0) {
        finish_stop(subs, -1, nullptr);  // no bound: a callback in progress is waited for
        return MsptiResult::MSPTI_SUCCESS;
    }
    // A callback that never returns must not hold stop(): it is left running past the grace (its
    // records are counted as dropped when it returns; see docs/architecture.md, Shutdown).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout);
    if (!finish_stop(subs, timeout, &deadline, kStopGrace))
        return fail(MsptiResult::MSPTI_ERROR_INNER,
                    "%s.stop: its callback was still running 5 s after the stop timeout (%lld ms); the monitor is "
                    "stopped, the callback was left running",
                    subs.front()->name(), static_cast<long long>(timeout));
    return MsptiResult::MSPTI_SUCCESS;
}

MsptiResult Session::stop_all() {
    const int64_t timeout = stop_timeout();
    std::vector<std::shared_ptr<Subscription>> subs;
    {
        std::lock_guard<std::mutex> control(control_);
        while (!running_.empty()) subs.push_back(take_locked(*running_.back()));
    }
    if (subs.empty()) return MsptiResult::MSPTI_SUCCESS;
    if (timeout < 0) {
        finish_stop(subs, -1, nullptr);
        return MsptiResult::MSPTI_SUCCESS;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout);
    if (!finish_stop(subs, timeout, &deadline, kExitGrace))
        return fail(MsptiResult::MSPTI_ERROR_INNER,
                    "stop_all: a callback was still running 1 s after the stop timeout (%lld ms); its monitor is "
                    "stopped, the callback was not waited for",
                    static_cast<long long>(timeout));
    return MsptiResult::MSPTI_SUCCESS;
}

MsptiResult Session::flush_all() {
    const Libmspti &lib = libmspti();
    if (!lib.loaded) return fail(MsptiResult::MSPTI_ERROR_INNER, "flush_all: %s", lib.error.c_str());
    msptiResult r = lib.flush_all(1);
    if (!t_delivery) {
        uint64_t target;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            target = enqueued_;
        }
        wait_delivered(target, -1);
    }
    if (r != MSPTI_SUCCESS)
        return fail(static_cast<MsptiResult>(r), "flush_all: msptiActivityFlushAll returned %d (%s)",
                    static_cast<int>(r), result_text(r));
    return MsptiResult::MSPTI_SUCCESS;
}

MsptiResult Session::flush_period(uint32_t time_ms) {
    const Libmspti &lib = libmspti();
    if (!lib.loaded) return fail(MsptiResult::MSPTI_ERROR_INNER, "flush_period: %s", lib.error.c_str());
    msptiResult r = lib.flush_period(time_ms);
    if (r != MSPTI_SUCCESS)
        return fail(static_cast<MsptiResult>(r), "flush_period: msptiActivityFlushPeriod(%u) returned %d (%s)", time_ms,
                    static_cast<int>(r), result_text(r));
    return MsptiResult::MSPTI_SUCCESS;
}

bool Session::any_running() {
    std::lock_guard<std::mutex> control(control_);
    return active_ > 0;
}

MsptiResult Session::set_buffer_size(int64_t megabytes) {
    if (megabytes < 1 || megabytes > 256)
        return fail(MsptiResult::MSPTI_ERROR_INVALID_PARAMETER, "set_buffer_size: %lld MB is outside 1..256",
                    static_cast<long long>(megabytes));
    std::lock_guard<std::mutex> control(control_);
    buffer_bytes_ = static_cast<size_t>(megabytes) << 20;
    return MsptiResult::MSPTI_SUCCESS;
}

MsptiResult Session::set_stop_timeout(int64_t milliseconds) {
    if (milliseconds < -1 || milliseconds > Monitor::kMaxStopTimeoutMs)
        return fail(MsptiResult::MSPTI_ERROR_INVALID_PARAMETER,
                    "set_stop_timeout: %lld ms is outside -1..%lld (-1: no bound)",
                    static_cast<long long>(milliseconds), static_cast<long long>(Monitor::kMaxStopTimeoutMs));
    stop_timeout_ms_.store(milliseconds, std::memory_order_relaxed);
    return MsptiResult::MSPTI_SUCCESS;
}

// ---- waiting for the delivery thread ------------------------------------------------------

bool Session::wait_delivered(uint64_t target, int64_t timeout_ms) {
    std::unique_lock<std::mutex> lock(mutex_);
    auto done = [&] {
        return processed_ >= target || exiting_ || (state_ != ThreadState::Running && state_ != ThreadState::Exiting);
    };
    if (timeout_ms < 0) {
        done_cv_.wait(lock, done);
        return true;
    }
    return done_cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), done);
}

bool Session::wait_not_using(uint64_t version, int64_t timeout_ms) {
    std::unique_lock<std::mutex> lock(mutex_);
    auto done = [&] {
        return !busy_ || busy_version_ >= version || exiting_ ||
               (state_ != ThreadState::Running && state_ != ThreadState::Exiting);
    };
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
void Session::wait_thread_started() {
    if (t_delivery) return;
    std::unique_lock<std::mutex> lock(mutex_);
    done_cv_.wait_for(lock, std::chrono::seconds(10),
                      [&] { return hooks_started_ || exiting_ || state_ != ThreadState::Running; });
}

void Session::join_if_exited() {
    std::thread finished;
    {
        std::unique_lock<std::mutex> lock(mutex_);
        done_cv_.wait(lock, [&] { return state_ != ThreadState::Exiting || exiting_; });
        if (state_ == ThreadState::Exited && !exiting_) {
            finished = std::move(thread_);
            state_ = ThreadState::None;
        }
    }
    if (finished.joinable()) finished.join();
}

bool Session::join_if_exited_until(std::chrono::steady_clock::time_point deadline) {
    std::thread finished;
    {
        std::unique_lock<std::mutex> lock(mutex_);
        if (!done_cv_.wait_until(lock, deadline, [&] { return state_ != ThreadState::Exiting || exiting_; }))
            return false;
        if (state_ == ThreadState::Exited && !exiting_) {
            finished = std::move(thread_);
            state_ = ThreadState::None;
        }
    }
    if (finished.joinable()) finished.join();  // only its on_thread_end hook is left to run
    return true;
}

void Session::at_process_exit() {
    Session &s = instance();
    std::thread finished;
    {
        std::unique_lock<std::mutex> lock(s.mutex_);
        s.exiting_ = true;
        delivery_cut().store(true, std::memory_order_relaxed);  // the buffer in progress stops early
        s.work_cv_.notify_all();
        s.done_cv_.notify_all();
        // exit() from a callback, no thread, or one stop_all() already found stuck in a callback
        if (t_delivery || s.state_ == ThreadState::None || s.stuck_) return;
        // The thread finishes the callback in progress and leaves. One stuck in a callback (waiting
        // for something the exiting thread holds) must not hang the exit: wait a bounded time.
        s.done_cv_.wait_for(lock, std::chrono::seconds(2), [&] { return s.state_ == ThreadState::Exited; });
        if (s.state_ != ThreadState::Exited) return;  // left running; the session is never destroyed
        finished = std::move(s.thread_);
        s.state_ = ThreadState::None;
    }
    finished.join();
}

// ---- the delivery thread --------------------------------------------------------------------

void Session::finish_buffer(const Pending &p, DeliveryThreadHooks *hooks) {
    // A binding may still reference the memory (a batch kept past its callback): then it owns it.
    bool keep = false;
    if (hooks != nullptr) run_hook([&] { keep = hooks->keep_buffer(p.data); }, "keep_buffer");
    if (keep)
        pool_.disown(p.data, p.size);
    else
        pool_.recycle(p.data, p.size);
}

void Session::thread_main(DeliveryThreadHooks *hooks) {
    t_delivery = true;
    pthread_setname_np(pthread_self(), "mspti_delivery");
    if (hooks != nullptr) run_hook([&] { hooks->on_thread_start(); }, "on_thread_start");
    {
        std::lock_guard<std::mutex> lock(mutex_);
        hooks_started_ = true;
        done_cv_.notify_all();
    }

    // If the thread is unwound (cancelled from inside a callback), leave the session consistent.
    struct Unwound {
        Session &s;
        bool normal = false;
        ~Unwound() {
            if (normal) return;
            std::deque<Pending> left;
            {
                std::lock_guard<std::mutex> lock(s.mutex_);
                left.swap(s.queue_);
                s.processed_ = s.enqueued_;
                s.busy_ = false;
                s.busy_buffer_ = Pending{};
                s.state_ = ThreadState::Exited;
                s.done_cv_.notify_all();
            }
            for (const Pending &p : left) s.pool_.recycle(p.data, p.size);
        }
    } unwound{*this};

    std::deque<Pending> left;
    std::shared_ptr<const Registry> last;
    {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            work_cv_.wait(lock, [&] { return !queue_.empty() || state_ != ThreadState::Running || exiting_; });
            if (exiting_) break;
            if (queue_.empty()) {
                if (state_ == ThreadState::Exiting) break;
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
            state_ = ThreadState::Exited;
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
        state_ = ThreadState::Exited;
        done_cv_.notify_all();
    }
    last.reset();
    unwound.normal = true;
    if (hooks != nullptr) run_hook([&] { hooks->on_thread_end(); }, "on_thread_end");
}

// ---- fork ------------------------------------------------------------------------------------

bool Session::start_thread_locked() {
    hooks_started_ = false;
    try {
        thread_ = std::thread(&Session::thread_main, this, hooks_.load(std::memory_order_acquire));
    } catch (const std::system_error &) {
        return false;
    }
    state_ = ThreadState::Running;
    restart_in_child_ = false;
    return true;
}

void Session::fork_prepare() {
    Session &s = instance();
    s.control_.lock();
    s.mutex_.lock();
    s.pool_.lock_for_fork();
}

void Session::fork_parent() {
    Session &s = instance();
    s.pool_.unlock_after_fork();
    s.mutex_.unlock();
    s.control_.unlock();
}

void Session::fork_child() {
    Session &s = instance();
    s.pool_.unlock_after_fork();
    // Only the forking thread exists here. The delivery thread is gone: forget its handle (it
    // names a thread of the parent) and start a new one with the child's first buffer.
    std::deque<Pending> parents;
    parents.swap(s.queue_);
    if (s.busy_buffer_.data != nullptr) parents.push_back(s.busy_buffer_);
    s.busy_buffer_ = Pending{};
    s.busy_ = false;
    // Subscriptions the parent's delivery thread was in: nobody is in them here (a stop() in the
    // child would wait for it forever).
    for (const auto *lists : {&s.registry_->batch, &s.registry_->run, &s.registry_->record})
        for (const SubList &list : *lists)
            for (const auto &sub : list) sub->reset_after_fork();
    s.processed_ = s.enqueued_;
    if (s.state_ != ThreadState::None) {
        new (&s.thread_) std::thread();
        s.restart_in_child_ = s.state_ == ThreadState::Running && !s.exiting_;
        s.state_ = ThreadState::None;
    }
    // Waiters counted in these belong to the parent's threads.
    new (&s.work_cv_) std::condition_variable();
    new (&s.done_cv_) std::condition_variable();
    s.mutex_.unlock();
    s.control_.unlock();
    for (const Pending &p : parents) s.pool_.recycle(p.data, p.size);
}

}  // namespace mspti::detail
