/**
 * @file monitor_binding.h
 * @brief What a language binding of the Monitor API needs beyond the user API of mspti/monitor.h:
 *        per-record callbacks that build their records a run at a time, joining the delivery
 *        thread to its runtime, keeping batch memory past a callback, and telling the library that
 *        a user exception was already reported.
 *
 * For the Python and Java bindings (swig/) and white-box tests. Applications do not include it,
 * and it is not installed.
 */
#ifndef MSPTI_MONITOR_BINDING_H
#define MSPTI_MONITOR_BINDING_H

#include <cstdint>
#include <exception>

#include "mspti/monitor.h"

namespace mspti {

/**
 * @brief A per-record callback of a binding that builds its record objects itself, a run of records
 *        at a time (the Java binding decodes a run's bytes in Java: one upcall per run, not per record).
 *
 * The monitor treats it as a per-record callback: it counts what on_run() says it handed over, its
 * callback errors, and the records it could not hand over, exactly as for C++ and Python callbacks.
 */
class RecordRunCallback {
public:
    virtual ~RecordRunCallback() = default;
    /**
     * @brief Hands the run's records, in order, to the user's per-record callback, asking
     *        record_run_live() after each one and stopping once it is false; then reports what it did
     *        with record_run_tally(). Runs on the delivery thread; `run` is valid until it returns.
     */
    virtual void on_run(const RecordBatch &run) = 0;
};

/**
 * @brief Starts (or switches) `monitor` to deliver its records to `callback`, one record per user
 *        call, through the session's per-record accounting. The monitor's kind is one with
 *        per-record callbacks: a simple kind, or MARKER for MstxMonitor's marks alone. The object must
 *        stay valid until stop() returned.
 * @return MSPTI_SUCCESS; MSPTI_ERROR_INVALID_PARAMETER for a NULL callback; otherwise as start().
 */
MsptiResult start_record_run(Monitor &monitor, RecordRunCallback *callback);

/**
 * @brief Inside RecordRunCallback::on_run(): whether the callback may still hand records on. False
 *        once its monitor's stop() let go of it (the backlog delivered, the stop timeout passed, or
 *        stop() called from a callback), a start() switched away from it, or the process exits;
 *        false outside a run callback.
 */
bool record_run_live();

/**
 * @brief Inside RecordRunCallback::on_run(), once at its end: of the run's first `handed + passed`
 *        records, `handed` went to the user's callback and `passed` were not for it (a range half
 *        for a marks callback); the user's callback raised `errors` exceptions, which the binding
 *        reported itself. The records after those were not handed over (the callback was let go
 *        of): they count as dropped as a per-record callback's would. Not called: the whole run
 *        counts as handed over.
 */
void record_run_tally(uint64_t handed, uint64_t passed, uint64_t errors);

/**
 * @brief Hooks a language binding installs so that the delivery thread joins its runtime once
 *        (Python thread state, JVM attach), not once per callback.
 *
 * All callbacks run on one delivery thread owned by this library (a thread calling flush_all() or
 * stop() only waits for it). on_thread_start() runs on that thread before its first callback,
 * on_thread_end() after its last, before the thread exits.
 */
class DeliveryThreadHooks {
public:
    virtual ~DeliveryThreadHooks() = default;
    /** @brief Runs on the delivery thread when it starts. */
    virtual void on_thread_start() = 0;
    /** @brief Runs on the delivery thread just before it exits. */
    virtual void on_thread_end() = 0;
    /**
     * @brief Runs on the delivery thread before it delivers one buffer's records (then
     *        on_buffer_end() after). A binding may take its runtime's lock here for the whole buffer
     *        (the Python GIL) rather than once per record, which a busy application thread would
     *        otherwise make each callback wait for. Default: nothing.
     */
    virtual void on_buffer_begin() {}
    /** @brief Runs on the delivery thread after it delivered one buffer's records. Default: nothing. */
    virtual void on_buffer_end() {}
    /**
     * @brief Asked on the delivery thread after a buffer's records were delivered (before
     *        on_buffer_end()): whether the binding still references the buffer's memory (a batch
     *        view kept past its callback). If true the library neither reuses nor frees `buffer`;
     *        the binding frees it with free_kept_buffer() once nothing references it. Default: false.
     */
    virtual bool keep_buffer(void *buffer) {
        (void)buffer;
        return false;
    }
};

/** @brief Frees a buffer a binding kept (DeliveryThreadHooks::keep_buffer() returned true). */
void free_kept_buffer(void *buffer);

/**
 * @brief Installs the hooks (NULL removes them). Call before any monitor starts; the object must
 *        outlive every monitor. Takes effect for delivery threads started afterwards.
 */
void set_delivery_thread_hooks(DeliveryThreadHooks *hooks);

/**
 * @brief Thrown by a binding's callback adapter after it has reported a user exception itself
 *        (with the language's own traceback): the monitor counts it without reporting it again.
 */
class CallbackErrorReported : public std::exception {
public:
    /** @brief Fixed text. */
    const char *what() const noexcept override { return "callback raised an exception (already reported)"; }
};

}  // namespace mspti

#endif  // MSPTI_MONITOR_BINDING_H
