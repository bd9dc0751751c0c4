// An event: each record captures the work enqueued on a stream so far; it completes when that work has run.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace vnpu {

class Event {
public:
    /// Starts a new record; returns its generation, to be completed by the stream task.
    uint64_t begin_record();
    /// Called by the stream worker when the recorded work has run.
    void complete(uint64_t generation, uint64_t timestamp_ns);
    /// True if the latest record has completed (or nothing was recorded).
    bool is_complete();
    /// Blocks the host until the latest record (as of the call) has completed.
    void synchronize();
    /// Generation of the latest record (0 = never recorded).
    uint64_t latest_generation();
    /// Blocks a stream worker until `generation` completes; false if aclFinalize cancelled the wait.
    bool wait_from_stream(uint64_t generation);
    /// Timestamp of the latest completed record; false if never recorded or not complete yet.
    bool completed_timestamp(uint64_t &timestamp_ns);

private:
    std::mutex mu_;
    std::condition_variable cv_;
    uint64_t recorded_ = 0;
    uint64_t completed_ = 0;
    uint64_t timestampNs_ = 0;
};

}  // namespace vnpu
