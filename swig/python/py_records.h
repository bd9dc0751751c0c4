// py_records.h: C++ record values -> the mspti package's owned Python record objects.
//
// The record classes (tuple subclasses defined in python/mspti/activity_data.py) and the enum
// value->member maps are registered once by the package (register_record_types). Building a
// record is one tuple plus one subtype allocation: no SWIG proxy pointing into native memory, so
// records stay valid after the callback, compare by value and pickle. Called with the GIL held.
#ifndef MSPTI_SWIG_PY_RECORDS_H
#define MSPTI_SWIG_PY_RECORDS_H

#include <Python.h>

#include <initializer_list>
#include <string>

#include "mspti/monitor_types.h"
#include "py_batch_lifetime.h"

namespace mspti_py {

/** The Python types records are built from (strong references, set once). */
struct RecordTypes {
    PyObject *kernel = nullptr, *hccl = nullptr, *communication = nullptr;
    PyObject *marker = nullptr, *range = nullptr, *object_id = nullptr;
    PyObject *kinds = nullptr, *flags = nullptr, *sources = nullptr, *data_types = nullptr;  // dict int -> member
    PyObject *batch_factory = nullptr;  // callable(kind: int, view: memoryview) -> batch object
};

inline RecordTypes &record_types() {
    static RecordTypes types;
    return types;
}

/** Stores the classes from a dict {"KernelData": cls, ..., "kinds": {int: member}, ...}; 0 on success. */
inline int register_record_types(PyObject *spec) {
    static const char *const keys[] = {"KernelData", "HcclData", "CommunicationData", "MarkerData",
                                       "RangeMarkerData", "MsptiObjectId", "kinds", "flags", "sources",
                                       "data_types", "batch_factory"};
    RecordTypes &t = record_types();
    PyObject **slots[] = {&t.kernel, &t.hccl, &t.communication, &t.marker, &t.range, &t.object_id,
                          &t.kinds, &t.flags, &t.sources, &t.data_types, &t.batch_factory};
    if (!PyDict_Check(spec)) {
        PyErr_SetString(PyExc_TypeError, "register_record_types expects a dict");
        return -1;
    }
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; ++i) {
        PyObject *value = PyDict_GetItemString(spec, keys[i]);  // borrowed
        if (value == nullptr) {
            PyErr_Format(PyExc_KeyError, "register_record_types: missing %s", keys[i]);
            return -1;
        }
        Py_INCREF(value);
        Py_XSETREF(*slots[i], value);
    }
    return 0;
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

inline PyObject *str(const std::string &s) { return PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace"); }

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

inline long as_long(mspti::MsptiActivityKind v) { return static_cast<long>(v); }
inline long as_long(mspti::MsptiActivityFlag v) { return static_cast<long>(v); }
inline long as_long(mspti::MsptiActivitySourceKind v) { return static_cast<long>(v); }
inline long as_long(mspti::MsptiCommunicationDataType v) { return static_cast<long>(v); }

inline PyObject *to_python(const mspti::MsptiObjectId &o) {
    return fill_record(alloc_record(record_types().object_id, 4),
                       {i64(o.process_id), i64(o.thread_id), i64(o.device_id), i64(o.stream_id)});
}

inline PyObject *to_python(const mspti::KernelData &d) {
    const RecordTypes &t = record_types();
    return fill_record(alloc_record(t.kernel, 8),
                       {enum_member(t.kinds, as_long(d.kind)), u64(d.start), u64(d.end), i64(d.device_id),
                        i64(d.stream_id), u64(d.correlation_id), str(d.type), str(d.name)});
}

inline PyObject *to_python(const mspti::HcclData &d) {
    const RecordTypes &t = record_types();
    return fill_record(alloc_record(t.hccl, 8),
                       {enum_member(t.kinds, as_long(d.kind)), u64(d.start), u64(d.end), i64(d.device_id),
                        i64(d.stream_id), PyFloat_FromDouble(d.bandwidth), str(d.name), str(d.comm_name)});
}

inline PyObject *to_python(const mspti::CommunicationData &d) {
    const RecordTypes &t = record_types();
    return fill_record(alloc_record(t.communication, 11),
                       {enum_member(t.kinds, as_long(d.kind)), enum_member(t.data_types, as_long(d.data_type)),
                        u64(d.count), i64(d.device_id), i64(d.stream_id), u64(d.start), u64(d.end),
                        str(d.alg_type), str(d.name), str(d.comm_name), u64(d.correlation_id)});
}

inline PyObject *to_python(const mspti::MarkerData &d) {
    const RecordTypes &t = record_types();
    return fill_record(alloc_record(t.marker, 8),
                       {enum_member(t.kinds, as_long(d.kind)), enum_member(t.flags, as_long(d.flag)),
                        enum_member(t.sources, as_long(d.source_kind)), u64(d.timestamp), u64(d.id),
                        to_python(d.object_id), str(d.name), str(d.domain)});
}

inline PyObject *to_python(const mspti::RangeMarkerData &d) {
    const RecordTypes &t = record_types();
    return fill_record(alloc_record(t.range, 8),
                       {enum_member(t.kinds, as_long(d.kind)), enum_member(t.sources, as_long(d.source_kind)),
                        u64(d.id), to_python(d.object_id), str(d.name), str(d.domain), u64(d.start), u64(d.end)});
}

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
