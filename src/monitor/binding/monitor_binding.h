/**
 * @file monitor_binding.h
 * @brief What a language binding of the Monitor API needs beyond the user API of mspti/monitor.h:
 *        joining the delivery thread to its runtime, keeping batch memory past a callback, and
 *        telling the library that a user exception was already reported.
 *
 * For the Python and Java bindings (swig/) and white-box tests. Applications do not include it,
 * and it is not installed.
 */
#ifndef MSPTI_MONITOR_BINDING_H
#define MSPTI_MONITOR_BINDING_H

#include <exception>

#include "mspti/monitor.h"

namespace mspti {

/**
 * @brief Inside BatchCallback::on_batch(): whether that callback may still hand records on. False
 *        once its monitor's stop() let go of it (the backlog delivered, the stop timeout passed, or
 *        stop() called from a callback), a start() switched away from it, or the process exits;
 *        false outside a batch callback. For a binding that hands a batch's records to a
 *        per-record callback one by one: it stops when this turns false, as the per-record
 *        monitors do.
 */
bool batch_callback_live();

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
