/*
 * vnpu.i: the virtual NPU's C++ facade (src/vnpu_facade/vnpu_facade.h), language-neutral. Used by
 * the Java bindings (java/vnpu_java.i -> org.mspti.vnpu) and the Python module
 * (vnpu_python/vnpu_native.i -> vnpu.native). A language module defines its container typemaps
 * (host arrays: std::vector<float> data, std::vector<int64_t> shapes) and then %includes this.
 *
 * C++ exceptions become the language's: std::invalid_argument -> ValueError /
 * IllegalArgumentException, any other std::exception -> RuntimeError / RuntimeException.
 */

%{
#include <stdexcept>
#include "vnpu_facade.h"
%}

%include <exception.i>
%include <stdint.i>

%exception {
  try {
    $action
  } catch (const std::invalid_argument &e) {
    SWIG_exception(SWIG_ValueError, e.what());
  } catch (const std::exception &e) {
    SWIG_exception(SWIG_RuntimeError, e.what());
  }
}

/* Internal to the facade's operators. */
%ignore vnpu::Tensor::empty;
%ignore vnpu::Tensor::data_ptr;

%include "vnpu_facade.h"
