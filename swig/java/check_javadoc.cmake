# CTest java.javadoc_public: runs javadoc as the 'javadoc' target does, into OUT, and checks its index:
# the public API is there (monitors, records, vnpu), SWIG's plumbing is not.
#     cmake -DJAVADOC=... -DOUT=<dir> -DARGS=<javadoc arguments, ;-list> -P check_javadoc.cmake
file(REMOVE_RECURSE "${OUT}")
execute_process(COMMAND "${JAVADOC}" -d "${OUT}" ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "javadoc failed (${rc}):\n${out}")
endif()
file(READ "${OUT}/index-all.html" index)
foreach(name KernelMonitor MstxMonitor KernelData onRecord flushAll close Tensor)
  if(NOT index MATCHES ">${name}[<(]")
    message(FATAL_ERROR "the javadoc index does not name ${name} (public API)")
  endif()
endforeach()
foreach(name swigCPtr getCPtr swigCMemOwn swigRelease swigReleaseOwnership swigTakeOwnership
             swigDirectorDisconnect delete finalize)
  if(index MATCHES ">${name}[<(]")
    string(REGEX MATCH "[^\n]*${name}[^\n]*" line "${index}")
    message(FATAL_ERROR "the javadoc index names SWIG's ${name}: ${line}")
  endif()
endforeach()
if(index MATCHES "\\(long, ?boolean\\)")  # SWIG's pointer constructors
  string(REGEX MATCH "[^\n]*\\(long, ?boolean\\)[^\n]*" line "${index}")
  message(FATAL_ERROR "the javadoc index names a pointer constructor: ${line}")
endif()
message(STATUS "javadoc: public API only")
