// py_batch_lifetime.h: a batch handed to Python is valid only during its callback.
//
// Each batch views the library's buffer through a memoryview. When the buffer's records have been
// delivered (DeliveryThreadHooks::keep_buffer, GIL held) every such memoryview is released, so
// any later use of the batch raises ValueError (python/mspti/_batch_lifetime.py checks it). A
// batch still referenced then, or a view of it, also keeps the buffer's memory: the library hands
// the buffer over and a capsule frees it once the last reference goes, so even access that
// bypasses the check (np.asarray, bytes()) reads valid memory instead of crashing.
#ifndef MSPTI_SWIG_PY_BATCH_LIFETIME_H
#define MSPTI_SWIG_PY_BATCH_LIFETIME_H

#include <Python.h>

#include <utility>
#include <vector>

#include "monitor_binding.h"

namespace mspti_py {

class BatchLifetime {
public:
    /** Remembers a batch made for the buffer being delivered (GIL held; takes new references). */
    void track(PyObject *view, PyObject *batch) {
        Py_INCREF(view);
        Py_INCREF(batch);
        live_.emplace_back(view, batch);
    }

    bool empty() const { return live_.empty(); }

    /**
     * The buffer's records were delivered: releases the batches' views. Returns whether one is
     * still referenced (then the caller keeps `buffer` and this object owns it). GIL held.
     */
    bool end_buffer(void *buffer) {
        PyObject *owner = nullptr;  // capsule that frees the buffer, shared by the batches kept
        bool keep = false;
        bool forever = false;  // referenced by something the capsule cannot be attached to
        for (auto &[view, batch] : live_) {
            const bool array = batch != view;  // a numpy batch (else the memoryview itself)
            bool held = false;
            if (array && Py_REFCNT(batch) > 1) {  // kept by the callback, directly or through a view
                held = keep = true;
                if (!attach(batch, buffer, &owner)) forever = true;
            }
            Py_DECREF(batch);
            // Left on the memoryview: our reference, and those of anything that took it (or a slice).
            auto *mv = reinterpret_cast<PyMemoryViewObject *>(view);
            if (!held && (Py_REFCNT(view) > 1 || mv->mbuf->exports > 1)) keep = forever = true;
            PyObject *r = PyObject_CallMethod(view, "release", nullptr);
            if (r == nullptr) {
                PyErr_Clear();  // still exported: the memory must stay
                if (!held) keep = forever = true;
            }
            Py_XDECREF(r);
            Py_DECREF(view);
        }
        live_.clear();
        if (forever) {
            PyObject *c = capsule(buffer, &owner);
            if (c != nullptr) {
                Py_INCREF(c);  // never released: the buffer is never freed
            } else {
                PyErr_Clear();
            }
        }
        Py_XDECREF(owner);
        return keep;
    }

private:
    static void free_buffer(PyObject *capsule) { mspti::free_kept_buffer(PyCapsule_GetPointer(capsule, kName)); }

    static PyObject *capsule(void *buffer, PyObject **owner) {
        if (*owner == nullptr) *owner = PyCapsule_New(buffer, kName, &BatchLifetime::free_buffer);
        return *owner;
    }

    // The batch array holds the capsule: the buffer lives as long as it (and its views) do.
    static bool attach(PyObject *batch, void *buffer, PyObject **owner) {
        PyObject *c = capsule(buffer, owner);
        if (c != nullptr && PyObject_SetAttrString(batch, "_mspti_memory", c) == 0) return true;
        PyErr_Clear();
        return false;
    }

    static constexpr const char *kName = "mspti.batch_memory";
    std::vector<std::pair<PyObject *, PyObject *>> live_;
};

inline BatchLifetime &batch_lifetime() {
    static BatchLifetime *lifetime = new BatchLifetime;  // delivery thread only
    return *lifetime;
}

}  // namespace mspti_py

#endif  // MSPTI_SWIG_PY_BATCH_LIFETIME_H
