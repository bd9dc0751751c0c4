#include "monitor/session.h"

#include <pthread.h>

#include <chrono>
#include <new>
#include <cstdio>
#include <cstdlib>
#include <system_error>

#include "monitor/convert.h"

namespace mspti::detail {

namespace {

thread_local bool t_delivery = false;

const char *kind_name(int kind) {
    switch (kind) {
    case MSPTI_ACTIVITY_KIND_MARKER: return "MARKER";
    case MSPTI_ACTIVITY_KIND_KERNEL: return "KERNEL";
    case MSPTI_ACTIVITY_KIND_HCCL: return "HCCL";
    case MSPTI_ACTIVITY_KIND_COMMUNICATION: return "COMMUNICATION";
    default: return "?";
    }
}

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

// Converts each record of a run once and hands it to every per-record subscription of its kind.
template <typename CRecord, typename Value, typename Callback>
void deliver_records(const uint8_t *first, size_t count, size_t stride,
                     const std::vector<std::shared_ptr<Subscription>> &subs) {
    Value value;
    for (size_t i = 0; i < count; ++i) {
        convert(*reinterpret_cast<const CRecord *>(first + i * stride), value);
        for (const auto &sp : subs) {
            auto *s = static_cast<RecordSubscription<Callback> *>(sp.get());
            if (s->detached()) continue;
            s->count(1);
            s->call([&] { s->callback()->on_record(value); });
        }
    }
}

}  // namespace

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
            s.queue_.push_back(Pending{buffer, size, valid});
            ++s.enqueued_;
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
    msptiResult r = msptiActivityRegisterCallbacks(&Session::on_request, &Session::on_complete);
    if (r != MSPTI_SUCCESS) {
        pool_.deactivate();
        return fail(static_cast<MsptiResult>(r), "%s.start: msptiActivityRegisterCallbacks returned %d (%s)", who,
                    static_cast<int>(r), result_name(r));
    }
    r = msptiSubscribe(&handle_, nullptr, nullptr);
    if (r == MSPTI_SUCCESS) {
        subscribed_ = true;
    } else if (r == MSPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        subscribed_ = false;  // the application subscribed itself: collection is initialised already
    } else {
        pool_.deactivate();
        return fail(static_cast<MsptiResult>(r), "%s.start: msptiSubscribe returned %d (%s)", who,
                    static_cast<int>(r), result_name(r));
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
        try {
            thread_ = std::thread(&Session::thread_main, this, hooks_.load(std::memory_order_acquire));
        } catch (const std::system_error &e) {
            lock.unlock();
            if (subscribed_) msptiUnsubscribe(handle_);
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
    if (subscribed_) msptiUnsubscribe(handle_);
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

void Session::publish_locked(const std::shared_ptr<Subscription> &add, const Subscription *remove,
                             uint64_t *version) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto next = std::make_shared<Registry>(*registry_);
    ++next->version;
    if (add) (add->batch() != nullptr ? next->batch : next->record)[add->kind()].push_back(add);
    if (remove != nullptr) {
        SubList &list = (remove->batch() != nullptr ? next->batch : next->record)[remove->kind()];
        for (auto it = list.begin(); it != list.end(); ++it) {
            if (it->get() == remove) {
                list.erase(it);
                break;
            }
        }
    }
    if (version != nullptr) *version = next->version;
    registry_ = std::move(next);
}

MsptiResult Session::start(MonitorCore &core, std::shared_ptr<Subscription> sub) {
    std::unique_lock<std::mutex> control(control_);
    if (core.current)
        return fail(MsptiResult::MSPTI_ERROR_INVALID_PARAMETER,
                    "%s.start: the monitor is running already; call stop() first", core.name);
    MsptiResult r = begin_locked(core.name);
    if (r != MsptiResult::MSPTI_SUCCESS) return r;
    const int kind = core.kind;
    if (kind_users_[kind] == 0) {
        msptiResult e = msptiActivityEnable(static_cast<msptiActivityKind>(kind));
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
                        kind_name(kind), static_cast<int>(e), result_name(e));
        }
    }
    ++kind_users_[kind];
    ++active_;
    core.current = sub;
    core.running.store(true, std::memory_order_release);
    publish_locked(sub, nullptr, nullptr);
    return MsptiResult::MSPTI_SUCCESS;
}

MsptiResult Session::stop(MonitorCore &core) {
    const bool inline_stop = t_delivery;  // from a callback: never wait for ourselves
    std::shared_ptr<Subscription> sub;
    {
        std::lock_guard<std::mutex> control(control_);
        if (!core.current) return MsptiResult::MSPTI_SUCCESS;
        sub = std::move(core.current);
        core.current.reset();
        core.running.store(false, std::memory_order_release);
        if (--kind_users_[core.kind] == 0) msptiActivityDisable(static_cast<msptiActivityKind>(core.kind));
        --active_;
    }
    // Everything collected so far goes to the delivery queue; wait until it has been delivered.
    msptiActivityFlushAll(1);
    if (!inline_stop) {
        uint64_t target;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            target = enqueued_;
        }
        wait_delivered(target);
    }
    uint64_t version = 0;
    bool ended = false;
    {
        std::lock_guard<std::mutex> control(control_);
        publish_locked(nullptr, sub.get(), &version);
        sub->detach();
        if (active_ == 0 && session_up_) {
            end_locked();
            ended = true;
        }
    }
    if (!inline_stop) {
        wait_not_using(version);  // a buffer in progress may still hold the old registry
        if (ended) join_if_exited();
    }
    return MsptiResult::MSPTI_SUCCESS;
}

MsptiResult Session::flush_all() {
    msptiResult r = msptiActivityFlushAll(1);
    if (!t_delivery) {
        uint64_t target;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            target = enqueued_;
        }
        wait_delivered(target);
    }
    if (r != MSPTI_SUCCESS)
        return fail(static_cast<MsptiResult>(r), "flush_all: msptiActivityFlushAll returned %d (%s)",
                    static_cast<int>(r), result_name(r));
    return MsptiResult::MSPTI_SUCCESS;
}

MsptiResult Session::set_buffer_size(int64_t megabytes) {
    if (megabytes < 1 || megabytes > 256)
        return fail(MsptiResult::MSPTI_ERROR_INVALID_PARAMETER,
                    "set_buffer_size: %lld MB is outside 1..256", static_cast<long long>(megabytes));
    std::lock_guard<std::mutex> control(control_);
    buffer_bytes_ = static_cast<size_t>(megabytes) << 20;
    return MsptiResult::MSPTI_SUCCESS;
}

// ---- waiting for the delivery thread ------------------------------------------------------

void Session::wait_delivered(uint64_t target) {
    std::unique_lock<std::mutex> lock(mutex_);
    done_cv_.wait(lock, [&] {
        return processed_ >= target || exiting_ ||
               (state_ != ThreadState::Running && state_ != ThreadState::Exiting);
    });
}

void Session::wait_not_using(uint64_t version) {
    std::unique_lock<std::mutex> lock(mutex_);
    done_cv_.wait(lock, [&] { return !busy_ || busy_version_ >= version || exiting_; });
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

void Session::at_process_exit() {
    Session &s = instance();
    std::thread finished;
    {
        std::unique_lock<std::mutex> lock(s.mutex_);
        s.exiting_ = true;
        s.work_cv_.notify_all();
        s.done_cv_.notify_all();
        if (t_delivery || s.state_ == ThreadState::None) return;  // exit() from a callback, or no thread
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

void Session::thread_main(DeliveryThreadHooks *hooks) {
    t_delivery = true;
    pthread_setname_np(pthread_self(), "mspti_delivery");
    if (hooks != nullptr) run_hook([&] { hooks->on_thread_start(); }, "on_thread_start");

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
            deliver_buffer(p, *reg);
            if (hooks != nullptr) run_hook([&] { hooks->on_buffer_end(); }, "on_buffer_end");
            lock.lock();
            busy_buffer_ = Pending{};  // ours to recycle now (a child forked from here must not)
            lock.unlock();
            pool_.recycle(p.data, p.size);
            reg.reset();  // may destroy detached subscriptions: not under our lock
            lock.lock();
            busy_ = false;
            ++processed_;
            done_cv_.notify_all();
        }
        left.swap(queue_);  // only when the process exits
        processed_ += left.size();
        state_ = ThreadState::Exited;
        done_cv_.notify_all();
    }
    unwound.normal = true;
    for (const Pending &p : left) pool_.recycle(p.data, p.size);
    if (hooks != nullptr) run_hook([&] { hooks->on_thread_end(); }, "on_thread_end");
}

void Session::deliver_buffer(const Pending &p, const Registry &reg) {
    if (p.valid == 0) return;
    msptiActivity *record = nullptr;
    const uint8_t *run = nullptr;
    size_t count = 0;
    size_t stride = 0;
    int run_kind = 0;
    while (msptiActivityGetNextRecord(p.data, p.valid, &record) == MSPTI_SUCCESS) {
        const auto *bytes = reinterpret_cast<const uint8_t *>(record);
        const int kind = static_cast<int>(record->kind);
        if (count != 0 && kind == run_kind && bytes == run + count * stride) {
            ++count;
            continue;
        }
        if (count != 0) deliver_run(run_kind, run, count, stride, reg);
        run = bytes;
        count = 1;
        run_kind = kind;
        stride = record_size(kind);
    }
    if (count != 0) deliver_run(run_kind, run, count, stride, reg);
}

void Session::deliver_run(int kind, const uint8_t *first, size_t count, size_t stride, const Registry &reg) {
    if (kind <= 0 || kind >= kKinds || stride == 0) return;
    for (const auto &s : reg.batch[kind]) {
        if (s->detached()) continue;
        RecordBatch batch;
        batch.kind = static_cast<MsptiActivityKind>(kind);
        batch.data = first;
        batch.count = count;
        batch.stride = stride;
        s->count(count);
        s->call([&] { s->batch()->on_batch(batch); });
        s->publish();
    }
    const SubList &subs = reg.record[kind];
    if (subs.empty()) return;
    switch (kind) {
    case MSPTI_ACTIVITY_KIND_KERNEL:
        deliver_records<msptiActivityKernel, KernelData, KernelCallback>(first, count, stride, subs);
        break;
    case MSPTI_ACTIVITY_KIND_HCCL:
        deliver_records<msptiActivityHccl, HcclData, HcclCallback>(first, count, stride, subs);
        break;
    case MSPTI_ACTIVITY_KIND_COMMUNICATION:
        deliver_records<msptiActivityCommunication, CommunicationData, CommunicationCallback>(first, count, stride,
                                                                                              subs);
        break;
    case MSPTI_ACTIVITY_KIND_MARKER: {
        MarkerData marker;
        for (size_t i = 0; i < count; ++i) {
            convert(*reinterpret_cast<const msptiActivityMarker *>(first + i * stride), marker);
            for (const auto &sp : subs) {
                if (sp->detached()) continue;
                static_cast<MstxSubscription *>(sp.get())->on_marker(marker);
            }
        }
        break;
    }
    default:
        break;
    }
    for (const auto &s : subs) s->publish();
}

// ---- fork ------------------------------------------------------------------------------------

bool Session::start_thread_locked() {
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
