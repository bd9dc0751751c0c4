# The record schema: schema/generate.py turns the table in schema/records.py into every
# language's record code (see docs/architecture.md, "The record schema"). It runs here, at
# configure time, and again whenever the table or the generator changes; outputs are build files
# in ${MSPTI_GENERATED_DIR}, never checked in, rewritten only when their text changes.
if(Python_EXECUTABLE AND NOT Python3_EXECUTABLE)
  set(Python3_EXECUTABLE ${Python_EXECUTABLE})  # the interpreter the bindings are built for
endif()
find_package(Python3 3.8 REQUIRED COMPONENTS Interpreter)
set(MSPTI_GENERATED_DIR ${CMAKE_BINARY_DIR}/generated CACHE INTERNAL "Code generated from schema/records.py")
set(MSPTI_GENERATED_INCLUDE_DIR ${MSPTI_GENERATED_DIR}/include CACHE INTERNAL "Generated public headers")
set(schema_sources ${PROJECT_SOURCE_DIR}/schema/records.py ${PROJECT_SOURCE_DIR}/schema/generate.py
                   ${PROJECT_SOURCE_DIR}/schema/pystubs.py ${PROJECT_SOURCE_DIR}/schema/types_.py
                   ${PROJECT_SOURCE_DIR}/schema/tracegen.py)
set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${schema_sources})
execute_process(COMMAND ${Python3_EXECUTABLE} -B ${PROJECT_SOURCE_DIR}/schema/generate.py ${MSPTI_GENERATED_DIR}
                RESULT_VARIABLE schema_rc OUTPUT_VARIABLE schema_changed)
if(NOT schema_rc EQUAL 0)
  message(FATAL_ERROR "schema/generate.py failed (${schema_rc})")
endif()
# Whether the SWIG lists changed: SWIG then reruns, and a binding whose output is a directory of
# classes (Java) must drop the classes of kinds that are gone (swig/java/CMakeLists.txt).
set(MSPTI_SCHEMA_SWIG_CHANGED OFF)
if(schema_changed MATCHES "swig/")
  set(MSPTI_SCHEMA_SWIG_CHANGED ON)
endif()
# Every target sees the generated public headers next to include/ (mspti/monitor_types.h includes them).
# mspti_ext.h includes mspti_ext_record_size.h by its bare name, found beside it once installed
# (whichever of <prefix>/include or <prefix>/include/mspti a program names); here, through its directory.
include_directories(${MSPTI_GENERATED_INCLUDE_DIR} ${MSPTI_GENERATED_INCLUDE_DIR}/mspti)
