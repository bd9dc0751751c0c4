// py_interruptible.h: a blocking native call (flush_all, stop) that Ctrl-C can interrupt. The call
// runs on a native thread that never touches Python; the calling thread waits with the GIL
// released and returns to Python's signal handlers between short waits. Python threads must not
// do the native wait themselves: one still inside it when the interpreter finalises would take the
// GIL back on its way out, and CPython ends such a thread with pthread_exit, which aborts the
// process when it unwinds through the wrapper.
#ifndef MSPTI_SWIG_PY_INTERRUPTIBLE_H
#define MSPTI_SWIG_PY_INTERRUPTIBLE_H

#include <Python.h>
#include <pthread.h>
#include <signal.h>

#include "mspti/monitor.h"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>

namespace mspti_py {

/** The result of a call handed to a native thread; shared, so either side may go first. */
struct NativeCall {
    std::mutex mutex;
    std::condition_variable done_cv;
    bool done = false;
    int result = 0;
    std::string message;  // its thread's mspti::last_error_message() (messages are per thread)
};

inline PyObject *result_tuple(int result, const std::string &message) {
    return Py_BuildValue("(is#)", result, message.data(), static_cast<Py_ssize_t>(message.size()));
}

/**
 * Runs `work` (which returns an MsptiResult as int) on a native thread and waits for it. Called
 * with the GIL held. Returns (result, error message of the call), or NULL with the exception of a signal
 * handler set (KeyboardInterrupt for Ctrl-C): `work` then goes on in the background, and whatever
 * it uses must stay alive until it ends (the caller keeps it).
 */
inline PyObject *call_interruptibly(std::function<int()> work) {
    auto call = std::make_shared<NativeCall>();
    try {
        std::thread([call, work] {
            sigset_t all;
            sigfillset(&all);
            pthread_sigmask(SIG_BLOCK, &all, nullptr);  // signals go to the waiting thread
            const int result = work();
            std::string message = result != 0 ? mspti::last_error_message() : std::string();
            std::lock_guard<std::mutex> lock(call->mutex);
            call->result = result;
            call->message = std::move(message);
            call->done = true;
            call->done_cv.notify_all();
        }).detach();
    } catch (const std::system_error &) {
        PyThreadState *state = PyEval_SaveThread();  // no thread to be had: wait here, not interruptible
        const int result = work();
        std::string message = result != 0 ? mspti::last_error_message() : std::string();
        PyEval_RestoreThread(state);
        return result_tuple(result, message);
    }
    for (;;) {
        bool done = false;
        int result = 0;
        std::string message;
        PyThreadState *state = PyEval_SaveThread();
        {
            // Bounded waits: a signal does not wake a condition variable, so look for one every 50 ms.
            std::unique_lock<std::mutex> lock(call->mutex);
            done = call->done_cv.wait_for(lock, std::chrono::milliseconds(50), [&] { return call->done; });
            result = call->result;
            if (done) message = call->message;
        }
        PyEval_RestoreThread(state);
        if (done) return result_tuple(result, message);
        if (PyErr_CheckSignals() != 0) return nullptr;
    }
}

}  // namespace mspti_py

#endif  // MSPTI_SWIG_PY_INTERRUPTIBLE_H
