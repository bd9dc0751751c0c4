/*
 * mspti_native.i: the Python module mspti.native (built with -threads). Python-specific glue only:
 * GIL policy, record typemaps, exception reporting in directors, delivery-thread hooks, the
 * stream typemap for mstx. The user-facing API is the pure-Python package python/mspti on top.
 */
%module(package="mspti", directors="1", threads="1") native

/* Directors look their Python method up once per callback object, not once per call. */
%begin %{
#define SWIG_PYTHON_DIRECTOR_VTABLE
%}

%{
#include "py_interruptible.h"
#include "py_records.h"
#include "py_thread.h"
%}

/* ---- GIL: held by default; released only in calls that block or wait for the delivery thread. */
%nothreadallow;
%threadallow mspti::Monitor::stop;
%threadallow mspti::Monitor::flush_all;
%threadallow mspti::Monitor::stop_all;
%threadallow mspti::MstxMonitor::start;
%threadallow mspti::MstxMonitor::start_batch;
%threadallow mspti::MstxMonitor::~MstxMonitor;

/* ---- Records reach Python as owned objects of the package's record classes. */
%define MSPTI_RECORD_DIRECTORIN(TYPE)
%typemap(directorin) const TYPE & {
  $input = mspti_py::to_python($1);
  if ($input == NULL) mspti_py::report_callback_error(swig_get_self());
}
%enddef
MSPTI_RECORD_DIRECTORIN(mspti::RecordBatch)

/* ---- the generated kinds: GIL released in start/stop, records by the typemap above. */
%include "schema_python.i"

/* ---- A Python exception in a callback: reported with traceback, counted by the monitor. */
%feature("director:except") {
  if ($error != NULL) {
    mspti_py::report_callback_error(swig_get_self());
  }
}

/* ---- Results and kinds are plain ints here; the package turns them into IntEnums. */
%typemap(out) mspti::MsptiResult "$result = PyLong_FromLong(static_cast<long>($1));"

/* ---- mstx streams: None, an int handle, or an object with an int `handle`. */
%typemap(in) aclrtStream {
  if (!mspti_py::stream_from_python($input, &$1)) SWIG_fail;
}
%typemap(typecheck, precedence=SWIG_TYPECHECK_POINTER) aclrtStream "$1 = 1;"

/* Optional trailing arguments (mstx streams) in one wrapper, not an overload dispatcher. */
%feature("compactdefaultargs");

%include "../monitor.i"
%include "../mstx.i"

%exception mspti_py::register_types {
  $action
  if (PyErr_Occurred()) SWIG_fail;
}
%inline %{
namespace mspti_py {
/** Registers the package's record classes and enum maps (called once by mspti/_native.py). */
void register_types(PyObject *spec) {
  register_record_types(spec);
}
/** Monitor.flush_all() on a native thread; Ctrl-C interrupts the wait (NULL: the exception).
 *  Returns (result, error message). */
PyObject *flush_all_interruptibly() {
  return call_interruptibly([] { return static_cast<int>(mspti::Monitor::flush_all()); });
}
/** monitor->stop() on a native thread, the same way; `monitor` must outlive the call (the caller
 *  keeps it when interrupted). */
PyObject *stop_interruptibly(mspti::Monitor *monitor) {
  return call_interruptibly([monitor] { return static_cast<int>(monitor->stop()); });
}
/** Whether the calling thread is the monitors' delivery thread. */
bool on_delivery_thread() { return delivery_hooks().on_delivery_thread(); }
/** A monitor's callbacks let go: kept until the buffer is done when called from a callback. */
void keep_until_buffer_end(PyObject *callbacks) { delivery_hooks().keep_until_buffer_end(callbacks); }
}
%}

%init %{
  mspti::set_delivery_thread_hooks(&mspti_py::delivery_hooks());
%}
