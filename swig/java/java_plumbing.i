/*
 * java_plumbing.i: SWIG's proxy plumbing stays out of the public Java API (and its javadoc): the
 * pointer constructors, getCPtr, swigRelease, delete() (which close() calls: Monitor, and the vnpu
 * Tensor, Stream and Communicator) and the directors' ownership calls are package-private;
 * swigCMemOwn, finalize() and swigDirectorDisconnect() stay protected (javadoc -public omits them).
 */
SWIG_JAVABODY_PROXY(/* package-private */, /* package-private */, SWIGTYPE)

%typemap(javadestruct, methodname="delete", methodmodifiers="synchronized", parameters="") SWIGTYPE {
    if (swigCPtr != 0) {
      if (swigCMemOwn) {
        swigCMemOwn = false;
        $jnicall;
      }
      swigCPtr = 0;
    }
  }

%typemap(javadestruct_derived, methodname="delete", methodmodifiers="synchronized", parameters="") SWIGTYPE {
    if (swigCPtr != 0) {
      if (swigCMemOwn) {
        swigCMemOwn = false;
        $jnicall;
      }
      swigCPtr = 0;
    }
    super.delete();
  }

/* Directors (the callback classes users extend): ownership stays with the bindings. */
%typemap(directorowner_release, methodname="swigReleaseOwnership") SWIGTYPE %{
  void $methodname() {
    swigCMemOwn = false;
    $jnicall;
  }
%}

%typemap(directorowner_take, methodname="swigTakeOwnership") SWIGTYPE %{
  void $methodname() {
    swigCMemOwn = true;
    $jnicall;
  }
%}
