/**
 * @file monitor.h
 * @brief The C++ Monitor API: typed records delivered to callbacks, built only on the msPTI C ABI.
 *
 * Each monitor collects one kind of data. Lifecycle: create, start(callback), run the workload,
 * stop(). Several monitors may run at once, several of the same kind included: each receives
 * every record of its kind (msPTI keeps one callback per kind; this is a deliberate extension). Callbacks run on this library's delivery thread, one at a time, never
 * under a lock of this library, and may call any method here, stop() included. An exception escaping a callback is reported, counted in stats(), and
 * delivery goes on.
 *
 * Because this layer uses only the public C ABI, it runs on any msPTI-compatible libmspti.so.
 */
#ifndef MSPTI_MONITOR_H
#define MSPTI_MONITOR_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "mspti/monitor_types.h"

namespace mspti {

namespace detail {
class MonitorCore;
struct MonitorAccess;
}

/** @brief Receives instantaneous markers (host and device records alike). */
class MarkCallback {
public:
    virtual ~MarkCallback() = default;
    /** @brief Called once per mark record. */
    virtual void on_record(const MarkerData &data) = 0;
};

/** @brief Receives ranges, start and end paired (host and device halves separately). */
class RangeCallback {
public:
    virtual ~RangeCallback() = default;
    /** @brief Called once per completed range half. */
    virtual void on_record(const RangeMarkerData &data) = 0;
};

/** @brief Receives records in blocks, as zero-copy views in msPTI's layout (the fast path). */
class BatchCallback {
public:
    virtual ~BatchCallback() = default;
    /** @brief Called once per block; `batch` is valid only during the call. */
    virtual void on_batch(const RecordBatch &batch) = 0;
};

/**
 * @brief The reason the calling thread's last failing Monitor call failed ("" if none).
 *
 * Every call that returns an error other than MSPTI_SUCCESS sets it.
 */
std::string last_error_message();

/**
 * @brief The version ("major.minor.patch") of the libmspti.so the monitors run on, or "" where
 *        that library does not say (msPTI's own has no msptiExtGetVersionString).
 */
std::string libmspti_version();

/**
 * @brief The device-channel counters of the libmspti.so the monitors run on (msptiExtDeviceGetStats):
 *        what KernelMonitor, HcclMonitor and CommunicationMonitor records were read from, and the
 *        device records that gave none. `available` is false where that library lacks the call.
 */
DeviceStats device_stats();

/** @brief Parts common to every monitor. Not used directly. */
class Monitor {
public:
    Monitor(const Monitor &) = delete;
    Monitor &operator=(const Monitor &) = delete;
    virtual ~Monitor();

    /** @brief Default of set_stop_timeout(): 2 seconds. */
    static constexpr int64_t kDefaultStopTimeoutMs = 2000;
    /** @brief Largest value set_stop_timeout() accepts: one day. */
    static constexpr int64_t kMaxStopTimeoutMs = 86400000;

    /**
     * @brief Stops collecting. Returns once every record produced before the call was delivered,
     *        or once the stop timeout (set_stop_timeout()) has passed, whichever comes first.
     *
     * Records of this monitor still undelivered at the timeout are never handed to its callback:
     * they are counted in MonitorStats::dropped and, with this implementation's libmspti, in its
     * dropped counts (msptiExtActivityGetNumDroppedRecords). A callback call in progress at the
     * timeout is waited for 5 s more; one still running then is left running (stop() returns
     * MSPTI_ERROR_INNER, the monitor stopped all the same): its callback objects must stay valid
     * until it returns, and the records it was not handed count as dropped once it returns. With
     * no bound (-1) stop() waits for everything, a call that never returns included.
     *
     * Safe from any thread, from inside this monitor's callback, and when not running (then a no-op
     * returning MSPTI_SUCCESS). The callback is no longer called once stop() has returned (except,
     * when stop() is called from inside it, for the call in progress; records still queued for it
     * are then counted as dropped).
     */
    MsptiResult stop();

    /**
     * @brief Sets how long stop() waits for the records collected before it (process-wide, all
     *        monitors; takes effect at the next stop()).
     *
     * The default is kDefaultStopTimeoutMs, or the environment variable MSPTI_STOP_TIMEOUT_MS
     * (milliseconds; negative: no bound) read when the first monitor is used.
     * @param milliseconds 0 to kMaxStopTimeoutMs, or -1 to wait until everything was delivered.
     * @return MSPTI_SUCCESS, or MSPTI_ERROR_INVALID_PARAMETER outside -1..kMaxStopTimeoutMs.
     */
    MsptiResult set_stop_timeout(int64_t milliseconds);

    /** @brief The current stop timeout in milliseconds (-1: no bound). */
    int64_t stop_timeout() const;

    /**
     * @brief Stops every running monitor of the process, all within one stop timeout: the backlog
     *        collected before the call is delivered until the timeout, what is left then is counted
     *        as by stop(). Then waits (a bounded time) for the delivery thread to leave.
     *
     * The bindings call it at interpreter or JVM exit, before their runtime goes away. A callback
     * still running 1 s after the timeout (say one that called exit() and waits for this very
     * call) is not waited for. From inside a callback it stops the monitors without waiting.
     * @return MSPTI_SUCCESS once every monitor was stopped and no callback runs; MSPTI_ERROR_INNER
     *         when a callback was still running then (the monitors are stopped anyway).
     */
    static MsptiResult stop_all();

    /**
     * @brief Delivers every record collected so far (of every running monitor), then returns.
     *        Process-wide: may be called on the class (KernelMonitor::flush_all()) or on an object.
     *
     * From inside a callback (on the delivery thread) it cannot wait for itself: it hands the
     * records collected so far to the delivery thread, which delivers them, in order, after the
     * callback returns.
     */
    static MsptiResult flush_all();

    /**
     * @brief Delivers partly filled activity buffers every `time_ms` milliseconds while collecting,
     *        so that records reach the callbacks during a long run, not only when a buffer fills
     *        or at stop(). Process-wide (msptiActivityFlushPeriod); 0 (the default) turns it off.
     * @return MSPTI_SUCCESS, or the result of msptiActivityFlushPeriod.
     */
    static MsptiResult flush_period(uint32_t time_ms);

    /**
     * @brief Sets the size of each activity buffer, in MB (1 to 256; default 8). Process-wide.
     *        Applies when collection next starts: called while a monitor runs, it returns
     *        MSPTI_SUCCESS and the running session keeps its buffer size until every monitor stopped.
     * @return MSPTI_SUCCESS, or MSPTI_ERROR_INVALID_PARAMETER outside 1..256.
     */
    static MsptiResult set_buffer_size(int64_t megabytes);

    /** @brief Whether any monitor of this process is collecting (so set_buffer_size() applies later). */
    static bool any_running();

    /** @brief Whether start() succeeded and stop() has not been called since. */
    bool is_running() const;

    /** @brief This monitor's counters. */
    MonitorStats stats() const;

protected:
    /** @brief A monitor of records of `kind`. */
    explicit Monitor(MsptiActivityKind kind);
    /** @brief The implementation's access for the language bindings (src/monitor). */
    friend struct detail::MonitorAccess;
    /** @brief The implementation (src/monitor). */
    std::unique_ptr<detail::MonitorCore> core_;
};

/** @brief Collects mstx markers: marks to one callback, paired ranges to another. */
class MstxMonitor : public Monitor {
public:
    /**
     * @brief Most range halves waiting for their other half, per monitor. Halves are kept across
     *        stop() and start(), so a range started before a restart and ended after it is paired
     *        (as msPTI's Python package does). When the table is full the oldest open half is
     *        dropped and counted in MonitorStats::unpaired_dropped, so ranges that are never ended
     *        cannot grow memory.
     */
    static constexpr size_t kMaxOpenRanges = 65536;

    MstxMonitor();
    /**
     * @brief Starts delivering marks to `mark` and paired ranges to `range`; either may be NULL.
     *        On a running monitor it switches to these callbacks, as KernelMonitor::start() (with
     *        the same bound on waiting for an old callback's call in progress).
     * @return MSPTI_SUCCESS.
     */
    MsptiResult start(MarkCallback *mark, RangeCallback *range);
    /** @brief Starts delivering blocks of msptiActivityMarker records to `callback`. */
    MsptiResult start_batch(BatchCallback *callback);
    /** @brief Starts delivering to functions (C++ convenience); either may be empty. */
    MsptiResult start(std::function<void(const MarkerData &)> mark, std::function<void(const RangeMarkerData &)> range);
    /**
     * @brief Turns collection of the domain with exactly this name back on ("default" = the non-domain API).
     * @return MSPTI_SUCCESS, or MSPTI_ERROR_INVALID_PARAMETER for an empty name or one of 255 characters or more.
     */
    MsptiResult enable_domain(const std::string &name);
    /** @brief Turns collection of a domain off, now and for domains created later. As enable_domain(). */
    MsptiResult disable_domain(const std::string &name);
};

}  // namespace mspti

// KernelMonitor and the other monitors that deliver one record per call, with their callback
// interfaces: generated from the record schema (schema/records.py).
#include "mspti/monitor_kinds.h"

#endif  // MSPTI_MONITOR_H
