// py_thread.h: the delivery thread joins Python once (persistent thread state), and a Python
// exception escaping a callback is reported with its traceback and turned into
// mspti::CallbackErrorReported so that delivery goes on.
#ifndef MSPTI_SWIG_PY_THREAD_H
#define MSPTI_SWIG_PY_THREAD_H

#include <Python.h>
#include <pthread.h>

#include <atomic>
#include <vector>

#include "monitor_binding.h"
#include "py_batch_lifetime.h"
#include "py_stream.h"

namespace mspti_py {

inline bool interpreter_alive() { return Py_IsInitialized() && !_Py_IsFinalizing(); }

/**
 * Creates the delivery thread's PyThreadState when the thread starts and keeps it until the
 * thread ends. Director calls then only take and drop the GIL (PyGILState_Ensure finds the
 * existing state) instead of creating and destroying a thread state per callback.
 */
class PythonDeliveryThreadHooks final : public mspti::DeliveryThreadHooks {
public:
    void on_thread_start() override {
        thread_.store(pthread_self(), std::memory_order_release);
        running_.store(true, std::memory_order_release);
        if (!interpreter_alive()) return;
        gil_ = PyGILState_Ensure();  // creates this thread's state and takes the GIL
        saved_ = PyEval_SaveThread();  // drops the GIL, keeps the state
        attached_ = true;
    }

    void on_thread_end() override {
        running_.store(false, std::memory_order_release);
        if (!attached_) return;
        attached_ = false;
        // After finalisation the state is gone with the interpreter; touching it would crash.
        if (!interpreter_alive()) return;
        PyEval_RestoreThread(saved_);
        release_kept();
        PyGILState_Release(gil_);  // last release: the thread state is deleted
    }

    // The GIL is held across a whole buffer: per record, a busy Python thread would make every
    // callback wait out its switch interval (5 ms). Callbacks still let other threads run: the
    // interpreter hands the GIL over every switch interval inside them.
    void on_buffer_begin() override {
        if (!attached_ || !interpreter_alive()) return;
        PyEval_RestoreThread(saved_);
        holding_ = true;
    }

    // Batches of the buffer expire here; one still referenced keeps the buffer's memory.
    bool keep_buffer(void *buffer) override {
        BatchLifetime &batches = batch_lifetime();
        if (batches.empty()) return false;
        if (holding_) return batches.end_buffer(buffer);
        if (!interpreter_alive()) return true;  // Python is gone: keep the memory, never free it
        PyGILState_STATE gil = PyGILState_Ensure();
        bool keep = batches.end_buffer(buffer);
        PyGILState_Release(gil);
        return keep;
    }

    void on_buffer_end() override {
        if (!holding_) return;
        release_kept();
        holding_ = false;
        saved_ = PyEval_SaveThread();
    }

    /**
     * Called with the GIL held when a monitor lets its callbacks go. On the delivery thread (a
     * stop() or start() from inside a callback) the callback may still be on the stack of its
     * director: `obj` is kept until the buffer is done. Elsewhere nothing is kept.
     */
    void keep_until_buffer_end(PyObject *obj) {
        if (!on_delivery_thread()) return;
        Py_INCREF(obj);
        kept_.push_back(obj);
    }

    /** In a forked child: the delivery thread of the parent is not this process's (a new one may
     *  start there, and a thread of the child could reuse its pthread_t). */
    void forget_thread_after_fork() {
        running_.store(false, std::memory_order_relaxed);
        attached_ = false;
        holding_ = false;
        kept_.clear();  // the parent's thread releases them (the child's copies leak, harmlessly)
    }

    /** True on the delivery thread (e.g. stop() called from inside a callback). */
    bool on_delivery_thread() const {
        return running_.load(std::memory_order_acquire) &&
               pthread_equal(thread_.load(std::memory_order_acquire), pthread_self());
    }

private:
    // GIL held, on the delivery thread: the callbacks kept until the buffer was done go now.
    void release_kept() {
        std::vector<PyObject *> kept;
        kept.swap(kept_);
        for (PyObject *obj : kept) Py_DECREF(obj);  // may run __del__, which may keep more
    }

    std::atomic<pthread_t> thread_{};
    std::atomic<bool> running_{false};
    PyGILState_STATE gil_{};
    PyThreadState *saved_ = nullptr;
    bool attached_ = false;  // only touched on the delivery thread
    bool holding_ = false;  // the GIL is held for the buffer being delivered
    std::vector<PyObject *> kept_;  // keep_until_buffer_end(); delivery thread, GIL held
};

inline PythonDeliveryThreadHooks &delivery_hooks() {
    static PythonDeliveryThreadHooks *hooks = [] {
        auto *h = new PythonDeliveryThreadHooks;  // outlives every monitor
        pthread_atfork(nullptr, nullptr, [] { delivery_hooks().forget_thread_after_fork(); });
        return h;
    }();
    return *hooks;
}

/**
 * The pending Python exception of a failed callback: reported through sys.unraisablehook with its
 * traceback (which clears it), then mspti::CallbackErrorReported for the monitor to count.
 * Called with the GIL held; the C++ exception touches no Python state.
 */
[[noreturn]] inline void report_callback_error(PyObject *context) {
    if (PyErr_Occurred()) {
        PyErr_WriteUnraisable(context);
    }
    throw mspti::CallbackErrorReported();
}


}  // namespace mspti_py

#endif  // MSPTI_SWIG_PY_THREAD_H
