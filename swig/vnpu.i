/*
 * vnpu.i: the virtual NPU's C++ facade (src/vnpu_facade/vnpu_facade.h), language-neutral. Used by
 * the Java bindings (java/vnpu_java.i -> org.mspti.vnpu) and the Python module
 * (vnpu_python/vnpu_native.i -> vnpu.native, under the vnpu package). A language module defines its
 * container typemaps (host arrays: std::vector<float> data, std::vector<int64_t> shapes) and then
 * %includes this.
 *
 * C++ exceptions become the language's: vnpu::api::DTypeError -> TypeError /
 * IllegalArgumentException, std::invalid_argument -> ValueError / IllegalArgumentException,
 * vnpu::api::CallError -> vnpu.NpuError (Python: a RuntimeError with .function and .code) /
 * RuntimeException, any other std::exception -> RuntimeError / RuntimeException.
 */

%{
#include <stdexcept>
#include "vnpu_facade.h"
%}

%include <exception.i>
%include <stdint.i>
%include <std_string.i>

%exception {
  try {
    $action
  } catch (const vnpu::api::CallError &e) {
#ifdef SWIGPYTHON
    vnpu_raise_call_error(e);  /* defined by vnpu_native.i */
    SWIG_fail;
#else
    SWIG_exception(SWIG_RuntimeError, e.what());
#endif
  } catch (const vnpu::api::DTypeError &e) {
    SWIG_exception(SWIG_TypeError, e.what());
  } catch (const std::invalid_argument &e) {
    SWIG_exception(SWIG_ValueError, e.what());
  } catch (const std::exception &e) {
    SWIG_exception(SWIG_RuntimeError, e.what());
  }
}

/* Internal to the facade's operators. */
%ignore vnpu::api::Tensor::data_ptr;

%include "vnpu_facade.h"
