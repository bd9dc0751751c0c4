/*
 * vnpu_native.i: the virtual NPU's facade for Python (module vnpu.native; a leading underscore in a SWIG Python module name breaks its generated classes), from the same
 * language-neutral ../vnpu.i as the Java org.mspti.vnpu. Python-specific: host arrays are
 * sequences in, tuples out (std_vector.i); the GIL is released in every call (-threads), so that
 * msPTI's delivery thread can run Python callbacks while a call blocks (synchronize, all-reduce).
 */
%module(package="vnpu", threads="1") native

%include <stdint.i>
%include <std_vector.i>
%template(FloatVector) std::vector<float>;
%template(ShapeVector) std::vector<int64_t>;

%include "../vnpu.i"
