// Stream worker: runs tasks in order; the host waits on sequence numbers.
#include "stream.h"

#include <utility>

namespace vnpu {

Stream::Stream(int32_t device_id, uint32_t stream_id, const Context *owner)
    : deviceId_(device_id), id_(stream_id), owner_(owner) {}

Stream::~Stream() { shutdown(); }

uint64_t Stream::enqueue(Task task) {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) {
        return 0;
    }
    if (!worker_.joinable()) {
        worker_ = std::thread([self = shared_from_this()] { self->worker_loop(); });
    }
    queue_.push_back(std::move(task));
    ++enqueued_;
    workCv_.notify_one();
    return enqueued_;
}

void Stream::wait_for(uint64_t seq) {
    std::unique_lock<std::mutex> lock(mu_);
    if (worker_.joinable() && on_worker()) {
        return;  // a task waiting for its own stream would wait forever
    }
    doneCv_.wait(lock, [&] { return completed_ >= seq; });
}

void Stream::synchronize() {
    uint64_t target = 0;
    {
        std::lock_guard<std::mutex> lock(mu_);
        target = enqueued_;
    }
    wait_for(target);
}

bool Stream::idle() {
    std::lock_guard<std::mutex> lock(mu_);
    return completed_ == enqueued_;
}

void Stream::shutdown() {
    std::thread worker;
    {
        std::lock_guard<std::mutex> lock(mu_);
        stopping_ = true;
        workCv_.notify_all();
        worker = std::move(worker_);
    }
    if (!worker.joinable()) {
        return;
    }
    if (worker.get_id() == std::this_thread::get_id()) {
        worker.detach();  // destroyed from one of its own tasks: the loop ends after this task
    } else {
        worker.join();
    }
}

void Stream::worker_loop() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
        workCv_.wait(lock, [&] { return !queue_.empty() || stopping_; });
        if (queue_.empty()) {
            return;  // stopping and drained
        }
        Task task = std::move(queue_.front());
        queue_.pop_front();
        lock.unlock();
        task();
        task = nullptr;  // release captures before reporting completion
        lock.lock();
        ++completed_;
        doneCv_.notify_all();
    }
}

}  // namespace vnpu
