// The stream argument of the Python API: None, an int handle, or an object with an int `handle`
// attribute (a vnpu stream). Shared by the SWIG module and the mstx fast path (mstx_fast.cpp).
#pragma once

#include <Python.h>

namespace mspti_py {

/** An aclrtStream from None, an int handle, or an object with an int `handle` attribute. */
inline bool stream_from_python(PyObject *obj, void **stream) {
    if (obj == Py_None) {
        *stream = nullptr;
        return true;
    }
    PyObject *handle = nullptr;
    if (PyLong_Check(obj)) {
        Py_INCREF(obj);
        handle = obj;
    } else {
        handle = PyObject_GetAttrString(obj, "handle");
        if (handle == nullptr || !PyLong_Check(handle)) {
            Py_XDECREF(handle);
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError,
                         "stream must be None, an int handle or a stream object with an int "
                         "'handle' attribute, not %.80R (%s)",
                         obj, Py_TYPE(obj)->tp_name);
            return false;
        }
    }
    *stream = PyLong_AsVoidPtr(handle);
    Py_DECREF(handle);
    return !PyErr_Occurred();
}

}  // namespace mspti_py
