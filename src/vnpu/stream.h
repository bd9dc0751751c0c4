// A stream: an in-order queue of tasks run by one worker thread (started at the first enqueue).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

namespace vnpu {

class Context;

/// Why a task failed (a collective whose ranks disagreed or timed out): the next synchronisation of its
/// stream reports it.
struct TaskError {
    int code = 0;  // the task's own result (an HcclResult)
    std::string message;  // names the operation, the ranks and the values
};

// Always owned by a shared_ptr: the worker thread holds one while it runs, so a stream destroyed from one
// of its own tasks stays alive until its loop ends.
class Stream : public std::enable_shared_from_this<Stream> {
public:
    using Task = std::function<void()>;

    Stream(int32_t device_id, uint32_t stream_id, const Context *owner);
    ~Stream();
    Stream(const Stream &) = delete;
    Stream &operator=(const Stream &) = delete;

    int32_t device_id() const { return deviceId_; }
    uint32_t id() const { return id_; }
    const Context *owner() const { return owner_; }

    /// Appends a task; returns its sequence number (>= 1), or 0 if the stream is shut down.
    uint64_t enqueue(Task task);
    /// Blocks until the task with sequence number `seq` (and all before it) has run.
    void wait_for(uint64_t seq);
    /// Blocks until every task enqueued before the call has run.
    void synchronize();
    /// True if every task enqueued so far has run.
    bool idle();
    /// Runs the remaining tasks, then stops the worker. Idempotent. Safe to call from the worker itself.
    void shutdown();

    /// Called by a failing task: keeps the first failure until a synchronisation takes it.
    void record_error(TaskError error) {
        std::lock_guard<std::mutex> lock(errorMu_);
        if (!error_) error_ = std::move(error);
    }
    /// The failure recorded since the last call, if any (a synchronisation reports it once).
    std::optional<TaskError> take_error() {
        std::lock_guard<std::mutex> lock(errorMu_);
        return std::exchange(error_, std::nullopt);
    }

private:
    void worker_loop();
    bool on_worker() const { return worker_.get_id() == std::this_thread::get_id(); }

    const int32_t deviceId_;
    const uint32_t id_;
    const Context *const owner_;

    std::mutex mu_;
    std::condition_variable workCv_;
    std::condition_variable doneCv_;
    std::deque<Task> queue_;
    uint64_t enqueued_ = 0;
    uint64_t completed_ = 0;
    bool stopping_ = false;
    std::thread worker_;

    std::mutex errorMu_;  // apart from mu_: the worker records while hosts wait on mu_
    std::optional<TaskError> error_;
};

}  // namespace vnpu
