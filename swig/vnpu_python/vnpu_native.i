/*
 * vnpu_native.i: the virtual NPU's facade for Python (module vnpu.native, which the vnpu package is
 * written on; a leading underscore in a SWIG Python module name breaks its generated classes), from
 * the same language-neutral ../vnpu.i as the Java org.mspti.vnpu. Python-specific: host arrays are
 * sequences in, tuples out (std_vector.i), host buffers are objects with the buffer protocol (numpy
 * arrays); runtime failures raise vnpu.NpuError; the GIL is released in every call (-threads), so
 * that msPTI's delivery thread can run Python callbacks while a call blocks (synchronize,
 * collectives); and libvnpu.so is made global on import, where libmspti.so looks for the runtime.
 */
%module(package="vnpu", threads="1") native

%{
#include "vnpu_facade.h"

/* Raises vnpu.NpuError(function, code, message) for a failed runtime call (the GIL is held: SWIG takes it
   back before the handlers of %exception run). */
static void vnpu_raise_call_error(const vnpu::api::CallError &e) {
  PyObject *module = PyImport_ImportModule("vnpu._errors");
  PyObject *type = module != nullptr ? PyObject_GetAttrString(module, "NpuError") : nullptr;
  PyObject *value = type != nullptr ? PyObject_CallFunction(type, "sls", e.function().c_str(), e.code(), e.what()) : nullptr;
  if (value != nullptr) {
    PyErr_SetObject(type, value);
  } else if (!PyErr_Occurred()) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  Py_XDECREF(value);
  Py_XDECREF(type);
  Py_XDECREF(module);
}
%}

%init %{
  vnpu::api::promote_runtime_to_global_scope();  /* where libmspti.so finds the runtime */
%}

%include <stdint.i>
%include <std_vector.i>
%template(FloatVector) std::vector<float>;
%template(ShapeVector) std::vector<int64_t>;

/* Host memory: a contiguous object with the buffer protocol (copy_to_host: a writable one), held
   until the call returns. */
%define VNPU_HOST_BUFFER(TYPE, FLAGS)
%typemap(in) (TYPE data, size_t bytes) (Py_buffer view, bool held = false) {
  if (PyObject_GetBuffer($input, &view, FLAGS) < 0) SWIG_fail;
  held = true;
  $1 = view.buf;
  $2 = static_cast<size_t>(view.len);
}
%typemap(freearg) (TYPE data, size_t bytes) {
  if (held$argnum) PyBuffer_Release(&view$argnum);
}
%enddef
VNPU_HOST_BUFFER(const void *, PyBUF_C_CONTIGUOUS)
VNPU_HOST_BUFFER(void *, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE)

%include "../vnpu.i"
