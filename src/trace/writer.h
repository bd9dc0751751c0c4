// The writer: hands msPTI its buffers (a bounded pool), takes completed ones in the buffer
// callback (a short queue lock, no I/O) and, on its own thread, decodes, filters and writes one
// window every flush period. Application threads never write and never wait for it, except in
// finish() at exit, on SIGTERM and when the program brings its own msPTI client.
#pragma once

#include <semaphore.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "config.h"
#include "filter.h"
#include "record.h"
#include "sink.h"
#include "stable_names.h"
#include "timeline.h"

namespace mspti_trace {

class Writer {
public:
    // Bounded memory: at most config.max_buffers buffers of kBufferBytes are out at once; when
    // all are, the request is declined and msPTI counts the records as dropped.
    static constexpr size_t kBufferBytes = 1u << 20;
    static constexpr size_t kWakeBuffers = 2;

    explicit Writer(const Config &config);
    ~Writer() = delete;  // lives until the process ends: callbacks may come during exit

    void start();
    void on_request(uint8_t **buffer, size_t *size, size_t *maxNumRecords);
    void on_complete(uint8_t *buffer, size_t size, size_t validSize);
    // Writes everything delivered so far and closes the file; waits while the writer makes
    // progress, and gives up (saying so, and telling the launcher records were lost) once it has
    // made none for idle_ms. The caller has called msptiActivityFlushAll(1) first. Idempotent.
    void finish(int idle_ms);
    // From a signal handler: the writer flushes msPTI itself, then finishes. Async-signal-safe.
    void finish_from_signal();
    // After finish_from_signal(): waits for the writer while it makes progress, at most idle_ms
    // without any; true once it has finished. Async-signal-safe in practice.
    bool wait_finished(int idle_ms);
    // From a signal handler: the writer flushes msPTI and writes what was delivered so far, and
    // tracing goes on; waits at most timeout_ms. Async-signal-safe in practice.
    void sync_from_signal(int timeout_ms);
    // Around fork(): the buffer queue is locked before and released after, in both processes, so
    // that a child never finds it held by a thread it does not have (its buffer requests would
    // wait forever). The child's buffers then stay queued: it has no writer thread.
    void lock_for_fork() { queue_mutex_.lock(); }
    void unlock_after_fork() { queue_mutex_.unlock(); }

private:
    void run();
    void window(bool final);
    bool ensure_sink();
    // A kept record goes to the timeline, or counts as lost when the file could not be created.
    void add(const Record &r);

    const Config &config_;
    uint32_t pid_;
    std::mutex queue_mutex_;  // guards free_, full_, allocated_
    std::vector<uint8_t *> free_;
    std::vector<std::pair<uint8_t *, size_t>> full_;
    size_t allocated_ = 0;
    sem_t wake_{}, done_{}, synced_{};
    std::atomic<bool> finishing_{false}, signalled_{false}, finished_{false}, started_{false}, sync_{false};
    // Steps of work the writer thread has done (buffers read, records placed, windows written): a
    // wait at exit goes on while this moves, so a slow writer on a loaded machine is not cut off
    // in the middle of its last window, and a stuck one is given up on in bounded time.
    std::atomic<uint64_t> progress_{0};
    std::thread thread_;
    // Writer-thread state. Records are processed in start order, markers first on ties (so that
    // a capture range opens before what it encloses), then in arrival order.
    struct SortKey {
        uint64_t start, tie;
        uint32_t index;
        bool operator<(const SortKey &o) const { return start != o.start ? start < o.start : tie < o.tie; }
    };
    std::vector<Record> pending_, ready_, released_;
    std::vector<SortKey> order_, scratch_;
    std::vector<size_t> bounds_;
    uint64_t seq_ = 0;
    Filter filter_;
    StableNames names_;
    std::unique_ptr<Sink> sink_;
    std::unique_ptr<Timeline> timeline_;
    bool sink_failed_ = false;
    uint64_t lost_unopened_ = 0;  // records kept while the file could not be created
    // Records handed to the timeline in this window, and those lost with windows that could not
    // be written (disk full, EIO), by kind: counted as dropped in the stats that follow.
    uint64_t window_records_[MSPTI_ACTIVITY_KIND_COUNT] = {};
    uint64_t lost_[MSPTI_ACTIVITY_KIND_COUNT] = {};
    uint64_t lost_total_ = 0;
    bool window_lost_ = false;  // some window could not be written
    std::map<uint32_t, int64_t> memory_before_;  // device memory in use before the file existed
};

}  // namespace mspti_trace
