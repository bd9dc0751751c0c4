// py_records.h: C++ record values -> the mspti package's owned Python record objects.
//
// The record classes (tuple subclasses of mspti.activity_data) and the enum value->member maps
// are registered once by the package (register_record_types); both, and the to_python() of each
// record (py_schema_records.h), are generated from the record schema (schema/records.py). Building a
// record is one tuple plus one subtype allocation: no SWIG proxy pointing into native memory, so
// records stay valid after the callback, compare by value and pickle. Called with the GIL held.
#ifndef MSPTI_SWIG_PY_RECORDS_H
#define MSPTI_SWIG_PY_RECORDS_H

#include <Python.h>

#include <initializer_list>
#include <string>

#include "mspti/monitor_types.h"
#include "py_schema_ids.h"
#include "py_batch_lifetime.h"

namespace mspti_py {

/** The Python types records are built from (strong references, set once). */
struct RecordTypes {
    PyObject *classes[kRecordClassCount] = {};  // by RecordClass
    PyObject *enums[kEnumClassCount] = {};  // by EnumClass: dict int -> member
    PyObject *batch_factory = nullptr;  // callable(kind: int, view: memoryview) -> batch object
};

inline RecordTypes &record_types() {
    static RecordTypes types;
    return types;
}

/** Looks `key` up in `spec` and keeps it in `*slot`; 0 on success. */
inline int register_one(PyObject *spec, const char *key, PyObject **slot) {
    PyObject *value = PyDict_GetItemString(spec, key);  // borrowed
    if (value == nullptr) {
        PyErr_Format(PyExc_KeyError, "register_record_types: missing %s", key);
        return -1;
    }
    Py_INCREF(value);
    Py_XSETREF(*slot, value);
    return 0;
}

/**
 * Stores the classes from a dict {"KernelData": cls, ..., "MsptiActivityKind": {int: member}, ...,
 * "batch_factory": callable}; 0 on success.
 */
inline int register_record_types(PyObject *spec) {
    if (!PyDict_Check(spec)) {
        PyErr_SetString(PyExc_TypeError, "register_record_types expects a dict");
        return -1;
    }
    RecordTypes &t = record_types();
    for (int i = 0; i < kRecordClassCount; ++i)
        if (register_one(spec, kRecordClassNames[i], &t.classes[i]) != 0) return -1;
    for (int i = 0; i < kEnumClassCount; ++i)
        if (register_one(spec, kEnumClassNames[i], &t.enums[i]) != 0) return -1;
    return register_one(spec, "batch_factory", &t.batch_factory);
}

/** The enum member for `value` in `members` (a dict), else the plain int. New reference. */
inline PyObject *enum_member(PyObject *members, long value) {
    PyObject *key = PyLong_FromLong(value);
    if (key == nullptr) return nullptr;
    PyObject *member = members != nullptr ? PyDict_GetItemWithError(members, key) : nullptr;  // borrowed
    if (member != nullptr) {
        Py_DECREF(key);
        Py_INCREF(member);
        return member;
    }
    return PyErr_Occurred() ? (Py_DECREF(key), nullptr) : key;
}

inline PyObject *str(const std::string &s) {
    return PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
}

/** Instance of the tuple subclass `cls` with `n` items, filled by the caller (SET_ITEM). New reference. */
inline PyObject *alloc_record(PyObject *cls, Py_ssize_t n) {
    if (cls == nullptr) {
        PyErr_SetString(PyExc_RuntimeError, "mspti record types are not registered (import mspti)");
        return nullptr;
    }
    // A tuple subtype's allocator gives a tuple layout: one allocation, no temporary tuple.
    PyTypeObject *type = reinterpret_cast<PyTypeObject *>(cls);
    return type->tp_alloc(type, n);
}

/** Fills `record` from the new references in `items`; on any NULL item drops everything. */
inline PyObject *fill_record(PyObject *record, std::initializer_list<PyObject *> items) {
    bool ok = record != nullptr;
    for (PyObject *item : items) ok = ok && item != nullptr;
    if (!ok) {
        for (PyObject *item : items) Py_XDECREF(item);
        Py_XDECREF(record);
        return nullptr;
    }
    Py_ssize_t i = 0;
    for (PyObject *item : items) PyTuple_SET_ITEM(record, i++, item);
    return record;
}

inline PyObject *u64(uint64_t v) { return PyLong_FromUnsignedLongLong(v); }
inline PyObject *i64(int64_t v) { return PyLong_FromLongLong(v); }

template <typename Enum>
inline long as_long(Enum v) {
    return static_cast<long>(v);
}

}  // namespace mspti_py

#include "py_schema_records.h"  // to_python() of each record

namespace mspti_py {

/** A batch as the package's batch object (numpy structured array, or memoryview without numpy). */
inline PyObject *to_python(const mspti::RecordBatch &b) {
    PyObject *factory = record_types().batch_factory;
    if (factory == nullptr) {
        PyErr_SetString(PyExc_RuntimeError, "mspti batch factory is not registered (import mspti)");
        return nullptr;
    }
    // Zero-copy, read-only view over the library's buffer; released after the callback
    // (py_batch_lifetime.h), so the batch cannot be used once its memory is gone.
    PyObject *view = PyMemoryView_FromMemory(static_cast<char *>(const_cast<void *>(b.data)),
                                             static_cast<Py_ssize_t>(b.size_bytes()), PyBUF_READ);
    if (view == nullptr) return nullptr;
    PyObject *batch = PyObject_CallFunction(factory, "lOn", as_long(b.kind), view, (Py_ssize_t)b.count);
    if (batch != nullptr) batch_lifetime().track(view, batch);
    Py_DECREF(view);
    return batch;
}

}  // namespace mspti_py

#endif  // MSPTI_SWIG_PY_RECORDS_H
