// mstx_fast.cpp: mspti._mstx, the mstx marker calls for Python without SWIG's wrappers (the
// module functions mark/range_start/range_end and DomainBase, the C part of mstx.Domain).
//
// mstx.mark/range_start/range_end are called in inner loops, so they are METH_FASTCALL functions
// that take the str itself: PyUnicode_AsUTF8AndSize returns the UTF-8 that CPython keeps on the
// str object (for ASCII, the str's own data), so a call converts and allocates nothing. Every
// check the Python API makes is kept here; what needs Python-level work (logging a name that is
// too long, formatting a rejected stream) runs only on the error path.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <dlfcn.h>

#include <cstring>

#include "mspti/mspti_ext.h"
#include "mstx/ms_tools_ext.h"
#include "py_stream.h"

namespace {

constexpr Py_ssize_t kMaxNameBytes = 254;  // msPTI records messages and domain names of at most 254 bytes

/**
 * msptiExtGetLastError of the libmspti.so mspti._loader loaded (globally), or null: msPTI's own
 * library lacks it, and then a rejected stream is not detected (mspti._loader says so once).
 */
decltype(&msptiExtGetLastError) g_last_error = nullptr;

/** The Python callable (api, what, nbytes) that logs a name msPTI would not record; set by mspti.mstx. */
PyObject *g_too_long_hook = nullptr;

/** type(obj).__name__, as the Python API's messages name types (error path only). */
PyObject *type_name(PyObject *obj) {
    return PyObject_GetAttrString(reinterpret_cast<PyObject *>(Py_TYPE(obj)), "__name__");
}

/**
 * Binds positional and keyword arguments to `names` (as a Python def would); slots of omitted
 * optional arguments stay nullptr. Raises the TypeError Python raises for a bad call.
 */
bool bind_args(const char *api, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, const char *const *names,
               Py_ssize_t required, Py_ssize_t count, PyObject **out) {
    if (nargs > count) {
        if (required == count) {
            PyErr_Format(PyExc_TypeError, "%s() takes %zd positional argument%s but %zd were given", api, count,
                         count == 1 ? "" : "s", nargs);
        } else {
            PyErr_Format(PyExc_TypeError, "%s() takes from %zd to %zd positional arguments but %zd were given", api,
                         required, count, nargs);
        }
        return false;
    }
    for (Py_ssize_t i = 0; i < nargs; ++i) out[i] = args[i];
    Py_ssize_t nkw = kwnames == nullptr ? 0 : PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t k = 0; k < nkw; ++k) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        Py_ssize_t slot = 0;
        while (slot < count && PyUnicode_CompareWithASCIIString(key, names[slot]) != 0) ++slot;
        if (slot == count) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", api, key);
            return false;
        }
        if (out[slot] != nullptr) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", api, names[slot]);
            return false;
        }
        out[slot] = args[nargs + k];
    }
    for (Py_ssize_t i = 0; i < required; ++i) {
        if (out[i] == nullptr) {
            PyErr_Format(PyExc_TypeError, "%s() missing 1 required positional argument: '%s'", api, names[i]);
            return false;
        }
    }
    return true;
}

enum class Name { ok, not_recorded, error };

/** Logs through the hook that `what` of `api` has `bytes` bytes and is not recorded. */
Name too_long(const char *api, const char *what, Py_ssize_t bytes) {
    if (g_too_long_hook == nullptr) return Name::not_recorded;
    PyObject *result = PyObject_CallFunction(g_too_long_hook, "ssn", api, what, bytes);
    if (result == nullptr) return Name::error;
    Py_DECREF(result);
    return Name::not_recorded;
}

/** The UTF-8 of a message or domain name `obj` (kept by the str), checked as msPTI records it. */
Name name_utf8(const char *api, const char *what, PyObject *obj, const char **utf8) {
    if (!PyUnicode_Check(obj)) {
        PyObject *type = type_name(obj);
        if (type != nullptr) {
            PyErr_Format(PyExc_TypeError, "%s(): %s must be a str, not %.80R (%U)", api, what, obj, type);
            Py_DECREF(type);
        }
        return Name::error;
    }
    Py_ssize_t size = 0;
    *utf8 = PyUnicode_AsUTF8AndSize(obj, &size);
    if (*utf8 == nullptr) return Name::error;  // a lone surrogate: UnicodeEncodeError
    return size > kMaxNameBytes ? too_long(api, what, size) : Name::ok;
}

/**
 * Runs `call(stream)` for a marker on a device stream; raises ValueError when libmspti rejected
 * the stream. Each failure message names its marker id, so a new failure always changes it.
 */
template <typename Call>
bool on_stream(const char *api, PyObject *stream_obj, Call call) {
    void *stream = nullptr;
    if (!mspti_py::stream_from_python(stream_obj, &stream)) return false;
    if (g_last_error == nullptr) {
        call(stream);
        return true;
    }
    char before[512];
    std::strncpy(before, g_last_error(), sizeof(before) - 1);
    before[sizeof(before) - 1] = '\0';
    call(stream);
    const char *after = g_last_error();
    if (std::strncmp(before, after, sizeof(before) - 1) != 0) {
        PyErr_Format(PyExc_ValueError, "%s(): stream %R was rejected: %s", api, stream_obj, after);
        return false;
    }
    return true;
}

/** A range id in 0..2**64-1, or an exception naming the argument. */
bool range_id_arg(const char *api, PyObject *obj, mstxRangeId *id) {
    if (!PyLong_Check(obj)) {
        PyObject *type = type_name(obj);
        if (type != nullptr) {
            PyErr_Format(PyExc_TypeError, "%s(): range_id must be an int, not %.80R (%U)", api, obj, type);
            Py_DECREF(type);
        }
        return false;
    }
    *id = PyLong_AsUnsignedLongLong(obj);
    if (*id == static_cast<mstxRangeId>(-1) && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s(): range_id must be in 0..2**64-1, not %R", api, obj);
        return false;
    }
    return true;
}

const char *const kMessageStream[] = {"message", "stream"};

/** (message, stream=None) of mark/range_start: fast for a lone positional message. */
bool message_args(const char *api, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out) {
    out[0] = out[1] = nullptr;
    if (nargs == 1 && kwnames == nullptr) {
        out[0] = args[0];
        return true;
    }
    return bind_args(api, args, nargs, kwnames, kMessageStream, 1, 2, out);
}

PyObject *py_mark(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *a[2];
    if (!message_args("mark", args, nargs, kwnames, a)) return nullptr;
    const char *message = nullptr;
    switch (name_utf8("mark", "message", a[0], &message)) {
    case Name::error: return nullptr;
    case Name::not_recorded: Py_RETURN_NONE;
    case Name::ok: break;
    }
    if (a[1] == nullptr || a[1] == Py_None) {
        mstxMarkA(message, nullptr);
    } else if (!on_stream("mark", a[1], [&](void *stream) { mstxMarkA(message, stream); })) {
        return nullptr;
    }
    Py_RETURN_NONE;
}

PyObject *py_range_start(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *a[2];
    if (!message_args("range_start", args, nargs, kwnames, a)) return nullptr;
    const char *message = nullptr;
    switch (name_utf8("range_start", "message", a[0], &message)) {
    case Name::error: return nullptr;
    case Name::not_recorded: return PyLong_FromLong(0);
    case Name::ok: break;
    }
    mstxRangeId id = 0;
    if (a[1] == nullptr || a[1] == Py_None) {
        id = mstxRangeStartA(message, nullptr);
    } else if (!on_stream("range_start", a[1], [&](void *stream) { id = mstxRangeStartA(message, stream); })) {
        return nullptr;
    }
    return PyLong_FromUnsignedLongLong(id);
}

PyObject *py_range_end(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char *const names[] = {"range_id"};
    PyObject *a[1] = {nullptr};
    if (nargs == 1 && kwnames == nullptr) {
        a[0] = args[0];
    } else if (!bind_args("range_end", args, nargs, kwnames, names, 1, 1, a)) {
        return nullptr;
    }
    mstxRangeId id = 0;
    if (!range_id_arg("range_end", a[0], &id)) return nullptr;
    mstxRangeEnd(id);
    Py_RETURN_NONE;
}

// ---- Domain: mspti.mstx.Domain derives from _mstx.DomainBase, which holds the handle -----------------

/** The C part of mspti.mstx.Domain: the handle (nullptr when nothing records the domain). */
struct DomainObject {
    PyObject_HEAD mstxDomainHandle_t handle;
};

mstxDomainHandle_t handle_of(PyObject *self) { return reinterpret_cast<DomainObject *>(self)->handle; }

PyObject *domain_mark(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *a[2];
    if (!message_args("Domain.mark", args, nargs, kwnames, a)) return nullptr;
    const char *message = nullptr;
    switch (name_utf8("Domain.mark", "message", a[0], &message)) {
    case Name::error: return nullptr;
    case Name::not_recorded: Py_RETURN_NONE;
    case Name::ok: break;
    }
    mstxDomainHandle_t domain = handle_of(self);
    if (domain == nullptr) Py_RETURN_NONE;
    if (a[1] == nullptr || a[1] == Py_None) {
        mstxDomainMarkA(domain, message, nullptr);
    } else if (!on_stream("Domain.mark", a[1], [&](void *stream) { mstxDomainMarkA(domain, message, stream); })) {
        return nullptr;
    }
    Py_RETURN_NONE;
}

PyObject *domain_range_start(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *a[2];
    if (!message_args("Domain.range_start", args, nargs, kwnames, a)) return nullptr;
    const char *message = nullptr;
    switch (name_utf8("Domain.range_start", "message", a[0], &message)) {
    case Name::error: return nullptr;
    case Name::not_recorded: return PyLong_FromLong(0);
    case Name::ok: break;
    }
    mstxDomainHandle_t domain = handle_of(self);
    if (domain == nullptr) return PyLong_FromLong(0);
    mstxRangeId id = 0;
    if (a[1] == nullptr || a[1] == Py_None) {
        id = mstxDomainRangeStartA(domain, message, nullptr);
    } else if (!on_stream("Domain.range_start", a[1],
                          [&](void *stream) { id = mstxDomainRangeStartA(domain, message, stream); })) {
        return nullptr;
    }
    return PyLong_FromUnsignedLongLong(id);
}

PyObject *domain_range_end(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char *const names[] = {"range_id"};
    PyObject *a[1] = {nullptr};
    if (nargs == 1 && kwnames == nullptr) {
        a[0] = args[0];
    } else if (!bind_args("Domain.range_end", args, nargs, kwnames, names, 1, 1, a)) {
        return nullptr;
    }
    mstxRangeId id = 0;
    if (!range_id_arg("Domain.range_end", a[0], &id)) return nullptr;
    if (handle_of(self) != nullptr) mstxDomainRangeEnd(handle_of(self), id);
    Py_RETURN_NONE;
}

PyObject *domain_get_handle(PyObject *self, void *) {
    if (handle_of(self) == nullptr) Py_RETURN_NONE;
    return PyLong_FromVoidPtr(handle_of(self));
}

int domain_set_handle(PyObject *self, PyObject *value, void *) {
    mstxDomainHandle_t domain = nullptr;
    if (value != nullptr && value != Py_None) {
        domain = static_cast<mstxDomainHandle_t>(PyLong_AsVoidPtr(value));
        if (domain == nullptr && PyErr_Occurred()) return -1;
    }
    reinterpret_cast<DomainObject *>(self)->handle = domain;
    return 0;
}

template <typename F>
PyCFunction as_cfunction(F *fn) {
    return reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(fn));
}

PyMethodDef g_domain_methods[] = {
    {"mark", as_cfunction(domain_mark), METH_FASTCALL | METH_KEYWORDS,
     "mark($self, message, stream=None)\n--\n\n"
     "An instantaneous marker in this domain (arguments as :func:`mspti.mstx.mark`)."},
    {"range_start", as_cfunction(domain_range_start), METH_FASTCALL | METH_KEYWORDS,
     "range_start($self, message, stream=None)\n--\n\n"
     "Starts a range in this domain; returns its id (0 when not recorded)."},
    {"range_end", as_cfunction(domain_range_end), METH_FASTCALL | METH_KEYWORDS,
     "range_end($self, range_id)\n--\n\n"
     "Ends a range of this domain (an unknown id does nothing)."},
    {nullptr, nullptr, 0, nullptr},
};

PyGetSetDef g_domain_getset[] = {
    {"_handle", domain_get_handle, domain_set_handle,
     "The domain's mstx handle as an int; None when nothing records it.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyType_Slot g_domain_slots[] = {
    {Py_tp_doc, const_cast<char *>("The C part of mspti.mstx.Domain: its handle and its marker calls.")},
    {Py_tp_methods, g_domain_methods},
    {Py_tp_getset, g_domain_getset},
    {Py_tp_new, reinterpret_cast<void *>(PyType_GenericNew)},
    {0, nullptr},
};

PyType_Spec g_domain_spec = {
    "mspti._mstx.DomainBase", sizeof(DomainObject), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, g_domain_slots,
};

PyObject *py_domain_create(PyObject *, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 1) {
        PyErr_Format(PyExc_TypeError, "_domain_create() takes 1 argument (%zd given)", nargs);
        return nullptr;
    }
    const char *name = nullptr;
    switch (name_utf8("Domain", "name", args[0], &name)) {
    case Name::error: return nullptr;
    case Name::not_recorded: Py_RETURN_NONE;
    case Name::ok: break;
    }
    mstxDomainHandle_t domain = mstxDomainCreateA(name);
    if (domain == nullptr) Py_RETURN_NONE;
    return PyLong_FromVoidPtr(domain);
}

PyObject *py_domain_destroy(PyObject *, PyObject *domain_obj) {
    auto domain = static_cast<mstxDomainHandle_t>(PyLong_AsVoidPtr(domain_obj));
    if (domain == nullptr && PyErr_Occurred()) return nullptr;
    if (domain != nullptr) mstxDomainDestroy(domain);
    Py_RETURN_NONE;
}

PyObject *py_set_too_long_hook(PyObject *, PyObject *hook) {
    if (!PyCallable_Check(hook)) {
        PyErr_SetString(PyExc_TypeError, "_set_too_long_hook(): the hook must be callable");
        return nullptr;
    }
    Py_INCREF(hook);
    Py_XSETREF(g_too_long_hook, hook);
    Py_RETURN_NONE;
}

PyMethodDef g_methods[] = {
    {"mark", as_cfunction(py_mark), METH_FASTCALL | METH_KEYWORDS,
     "mark($module, message, stream=None)\n--\n\n"
     "Records an instantaneous marker named ``message`` (a str of at most 254 UTF-8 bytes).\n\n"
     "``stream``: None for a host marker only, or a device stream (a ``vnpu.Stream``, an object\n"
     "with an int ``handle``, or the handle) to also mark the point the stream reaches. Recorded\n"
     "while an MstxMonitor runs. A longer message is not recorded (a warning on the ``mspti``\n"
     "logger), as in msPTI. Raises TypeError for a non-str message or an unusable stream type and\n"
     "ValueError for a stream handle the runtime rejects."},
    {"range_start", as_cfunction(py_range_start), METH_FASTCALL | METH_KEYWORDS,
     "range_start($module, message, stream=None)\n--\n\n"
     "Starts a range named ``message``; returns its id for :func:`range_end`.\n\n"
     "Arguments as :func:`mark`. Returns 0 when the range is not recorded (no MstxMonitor running,\n"
     "the message too long, or the default domain disabled); range_end(0) does nothing."},
    {"range_end", as_cfunction(py_range_end), METH_FASTCALL | METH_KEYWORDS,
     "range_end($module, range_id)\n--\n\n"
     "Ends the range ``range_id`` returned by :func:`range_start` (on its stream too, if it had one).\n\n"
     "An unknown id, or 0, does nothing, as in msPTI. Raises TypeError for a non-int id and\n"
     "ValueError for one outside 0..2**64-1."},
    {"_domain_create", as_cfunction(py_domain_create), METH_FASTCALL,
     "_domain_create($module, name, /)\n--\n\nThe handle (an int) of domain ``name``, or None when nothing records "
     "it."},
    {"_domain_destroy", py_domain_destroy, METH_O,
     "_domain_destroy($module, handle, /)\n--\n\nMarks the domain ``handle`` destroyed."},
    {"_set_too_long_hook", py_set_too_long_hook, METH_O,
     "_set_too_long_hook($module, hook, /)\n--\n\n"
     "hook(api, what, nbytes) is called for a name of more than 254 bytes, which is not recorded."},
    {nullptr, nullptr, 0, nullptr},
};

PyModuleDef g_module = {
    PyModuleDef_HEAD_INIT,
    "mspti._mstx",
    "The mstx marker calls behind mspti.mstx (METH_FASTCALL, no per-call conversion).",
    -1,
    g_methods,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
};

}  // namespace

PyMODINIT_FUNC PyInit__mstx(void) {
    g_last_error = reinterpret_cast<decltype(&msptiExtGetLastError)>(dlsym(RTLD_DEFAULT, "msptiExtGetLastError"));
    PyObject *module = PyModule_Create(&g_module);
    if (module == nullptr) return nullptr;
    PyObject *domain_type = PyType_FromSpec(&g_domain_spec);
    if (domain_type == nullptr || PyModule_AddObject(module, "DomainBase", domain_type) != 0) {
        Py_XDECREF(domain_type);
        Py_DECREF(module);
        return nullptr;
    }
    return module;
}
