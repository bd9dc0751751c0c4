#include "monitor/session.h"

#include <pthread.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "monitor/convert.h"
#include "monitor/libmspti.h"

namespace mspti::detail {

namespace {

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

bool Session::on_delivery_thread() { return DeliveryThread::on_thread(); }

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
    if (!s.delivery_.enqueue(buffer, size, valid)) s.pool_.recycle(buffer, size);  // nobody to deliver to
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
    std::string error;
    if (!delivery_.start(&error)) {
        if (subscribed_) libmspti().unsubscribe(handle_);
        subscribed_ = false;
        pool_.deactivate();
        return fail(MsptiResult::MSPTI_ERROR_INNER, "%s.start: could not start the delivery thread: %s", who,
                    error.c_str());
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
    delivery_.wind_down();
}

void Session::publish_locked(const std::shared_ptr<Subscription> &add, const Subscription *remove) {
    delivery_.publish([&](Registry &next, uint64_t delivered) {
        if (add) next.list_of(*add).push_back(add);
        if (remove != nullptr) {
            SubList &list = next.list_of(*remove);
            for (auto it = list.begin(); it != list.end(); ++it) {
                if (it->get() == remove) {
                    // Still listed while buffers it abandoned are queued (see below).
                    if (remove->abandoned_through() <= delivered) list.erase(it);
                    break;
                }
            }
        }
        // Stops that ran out of time leave their subscription listed (detached) so that the rest of
        // its backlog is counted as dropped; forget it once that backlog has gone through.
        for (auto *lists : {&next.batch, &next.run, &next.record}) {
            for (SubList &list : *lists) {
                for (auto it = list.begin(); it != list.end();) {
                    if ((*it)->detached() && (*it)->abandoned_through() <= delivered && it->get() != add.get())
                        it = list.erase(it);
                    else
                        ++it;
                }
            }
        }
    });
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
            if (ended && !DeliveryThread::on_thread()) delivery_.join_if_exited();
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
    publish_locked(sub, nullptr);
    control.unlock();
    delivery_.wait_started();
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
    const uint64_t version = delivery_.publish([&](Registry &next, uint64_t) {
        SubList &from = next.list_of(*old);
        auto it = std::find(from.begin(), from.end(), old);
        if (it != from.end() && old->path() == sub->path()) {
            *it = sub;  // keeps its place in the delivery order
        } else {
            if (it != from.end()) from.erase(it);
            next.list_of(*sub).push_back(sub);
        }
    });
    core.current = std::move(sub);
    control.unlock();
    // From a callback the rest of the current buffer still goes to the old subscription.
    if (DeliveryThread::on_thread()) return MsptiResult::MSPTI_SUCCESS;
    const int64_t timeout = stop_timeout();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(std::max<int64_t>(timeout, 0));
    if (!delivery_.wait_not_using(version, timeout)) {
        // The buffer in progress takes longer than a stop may wait: the old callback is not
        // given the rest of it, and those records count as dropped (as a stop's backlog).
        old->abandon_through(delivery_.enqueued());
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
    const bool inline_stop = DeliveryThread::on_thread();  // from a callback: never wait for ourselves
    // Everything collected so far goes to the delivery queue; wait, for a bounded time, until it
    // has been delivered. What is still queued for these monitors then is counted as dropped.
    if (libmspti().loaded) libmspti().flush_all(1);
    const uint64_t target = delivery_.enqueued();
    for (const auto &sub : subs) sub->abandon_through(target);
    if (!inline_stop) delivery_.wait_delivered(target, backlog_ms);
    bool ended = false;
    {
        std::lock_guard<std::mutex> control(control_);
        for (const auto &sub : subs) {
            sub->detach();
            publish_locked(nullptr, sub.get());
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
            delivery_.join_if_exited();
        else if (idle)  // a thread still in a callback would not leave: do not wait for it
            delivery_.join_if_exited_until(grace);
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
    if (!idle) delivery_.mark_stuck();  // the exit handler need not wait for it again
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
    if (!DeliveryThread::on_thread()) delivery_.wait_delivered(delivery_.enqueued(), -1);
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

void Session::at_process_exit() { instance().delivery_.at_exit(); }

// ---- fork: each part resets itself -----------------------------------------------------------

void Session::fork_prepare() {
    Session &s = instance();
    s.control_.lock();
    s.delivery_.lock_for_fork();
    s.pool_.lock_for_fork();
}

void Session::fork_parent() {
    Session &s = instance();
    s.pool_.unlock_after_fork();
    s.delivery_.unlock_after_fork();
    s.control_.unlock();
}

void Session::fork_child() {
    // Only the forking thread exists here. Control keeps its state (the running monitors).
    Session &s = instance();
    s.pool_.unlock_after_fork();
    s.delivery_.restart_after_fork();  // recycles the parent's queued buffers into the pool
    s.control_.unlock();
}

}  // namespace mspti::detail
