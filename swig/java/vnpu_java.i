/*
 * vnpu_java.i: the virtual NPU for Java (package org.mspti.vnpu, JNI library libvnpu_java.so) from
 * the language-neutral ../vnpu.i. Java-specific: host arrays are float[] / long[], names are
 * lowerCamelCase, Stream is an org.mspti.NativeStream (mstx markers can be placed on it), and
 * libvnpu.so is made global on load so that libmspti.so finds the runtime's profiler interface.
 */
%module Vnpu

%include "java_plumbing.i"
%pragma(java) jniclassclassmodifiers="final class"
%pragma(java) moduleclassmodifiers="public final class"
%pragma(java) modulecode=%{
  private Vnpu() {}
%}
%pragma(java) jniclasscode=%{
  static {
    org.mspti.NativeLoader.load("vnpu_java");
  }
%}

%{
#include "vnpu_facade.h"

// Where libmspti.so finds the runtime (promote_runtime.cpp).
extern "C" JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *, void *) {
  vnpu::api::promote_runtime_to_global_scope();
  return JNI_VERSION_1_8;
}
%}

%rename("%(lowercamelcase)s", %$isfunction) "";

/* ---- host arrays: float[] data, long[] shapes (copied in and out). */
%define VNPU_JAVA_ARRAY(CTYPE, JARRAY, JELEM, JNAME, GET, RELEASE, NEW, SET)
%typemap(jni) const std::vector<CTYPE> &, std::vector<CTYPE> #JARRAY
%typemap(jtype) const std::vector<CTYPE> &, std::vector<CTYPE> JNAME
%typemap(jstype) const std::vector<CTYPE> &, std::vector<CTYPE> JNAME
%typemap(javain) const std::vector<CTYPE> & "$javainput"
%typemap(javaout) std::vector<CTYPE> { return $jnicall; }
%typemap(in) const std::vector<CTYPE> & (std::vector<CTYPE> temp) {
  if ($input == nullptr) {
    SWIG_JavaThrowException(jenv, SWIG_JavaNullPointerException, "$1_name is null");
    return $null;
  }
  jsize len_$argnum = jenv->GetArrayLength($input);
  temp.resize(static_cast<size_t>(len_$argnum));
  if (len_$argnum > 0) jenv->GET($input, 0, len_$argnum, reinterpret_cast<JELEM *>(temp.data()));
  $1 = &temp;
}
%typemap(out) std::vector<CTYPE> {
  $result = jenv->NEW(static_cast<jsize>($1.size()));
  if ($result != nullptr && !$1.empty())
    jenv->SET($result, 0, static_cast<jsize>($1.size()), reinterpret_cast<const JELEM *>($1.data()));
}
%enddef
VNPU_JAVA_ARRAY(float, jfloatArray, jfloat, "float[]", GetFloatArrayRegion, , NewFloatArray, SetFloatArrayRegion)
VNPU_JAVA_ARRAY(int64_t, jlongArray, jlong, "long[]", GetLongArrayRegion, , NewLongArray, SetLongArrayRegion)

/* ---- Stream: an mstx-capable NativeStream. */
%typemap(javainterfaces) vnpu::api::Stream "org.mspti.NativeStream, AutoCloseable"
%typemap(javainterfaces) vnpu::api::Tensor "AutoCloseable"
%typemap(javainterfaces) vnpu::api::Communicator "AutoCloseable"
%typemap(javacode) vnpu::api::Communicator %{
  /** Frees the native object now (otherwise the garbage collector does); it is unusable afterwards. */
  @Override
  public void close() {
    delete();
  }
%}
%typemap(javacode) vnpu::api::Stream %{
  /** The aclrtStream handle (for mstx markers on this stream). */
  @Override
  public long nativeHandle() {
    return handle();
  }

  @Override
  public String toString() {
    return "Stream[device=" + device() + ", id=" + id() + "]";
  }

  /** Frees the native object now (otherwise the garbage collector does); it is unusable afterwards. */
  @Override
  public void close() {
    delete();
  }
%}
%typemap(javacode) vnpu::api::Tensor %{
  @Override
  public String toString() {
    return "Tensor[device=" + device() + ", shape=" + java.util.Arrays.toString(shape()) + "]";
  }

  /** Frees the native object now (otherwise the garbage collector does); it is unusable afterwards. */
  @Override
  public void close() {
    delete();
  }
%}

/* Host buffers are Python's (buffer protocol); Java copies float[] through the constructor and toHost().
   The shape helpers and Tensor.empty serve the Python package (and their int64_t vectors reach the
   wrappers as long long here). */
%ignore vnpu::api::Tensor::copy_from_host;
%ignore vnpu::api::Tensor::copy_to_host;
%ignore vnpu::api::Tensor::empty;
%ignore vnpu::api::broadcast_shapes;
%ignore vnpu::api::matmul_shape;

%include "../vnpu.i"
