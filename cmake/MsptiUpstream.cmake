# msPTI's own libmspti.so, built from its sources as a test subject: MSPTI_UPSTREAM_SOURCE (cache or
# environment variable; CI: ../shared/upstream/mspti, relative to this repository) names msPTI's source
# tree, which is only read. Nothing of it is copied into the project. The library goes to
# <build>/upstream/lib, and <build>/ascend-upstream is the virtual CANN with that libmspti.so in place of
# ours (its set_env.sh as <build>/ascend's), where msPTI's samples and Python package run
# (tests/upstream). Unset, those tests are skipped with a message saying how to enable them.
set(MSPTI_UPSTREAM_SOURCE "" CACHE PATH
    "msPTI's source tree (github Ascend/mspti), to build its libmspti.so for tests; empty: the environment variable, else those tests skip")
set(upstream_source "${MSPTI_UPSTREAM_SOURCE}")
if(NOT upstream_source AND DEFINED ENV{MSPTI_UPSTREAM_SOURCE})
  set(upstream_source "$ENV{MSPTI_UPSTREAM_SOURCE}")  # read at each configure, as CI sets it
endif()
set(MSPTI_UPSTREAM_DIR "")
if(upstream_source)
  get_filename_component(MSPTI_UPSTREAM_DIR "${upstream_source}" ABSOLUTE BASE_DIR "${PROJECT_SOURCE_DIR}")
  if(NOT EXISTS "${MSPTI_UPSTREAM_DIR}/csrc/common/function_loader.cpp")
    message(FATAL_ERROR "MSPTI_UPSTREAM_SOURCE=${upstream_source} (${MSPTI_UPSTREAM_DIR}) is not msPTI's source "
                        "tree: no csrc/common/function_loader.cpp there")
  endif()
endif()

# Not under the sanitizer presets: msPTI's library is a test subject there is nothing to instrument for.
if(MSPTI_UPSTREAM_DIR AND TARGET vnpu AND NOT MSPTI_SANITIZE)
  # The sources and compile flags of msPTI's own CMakeLists.txt (mspti_shared); securec.h and libc_sec
  # are the virtual CANN's.
  file(GLOB_RECURSE mspti_upstream_sources CONFIGURE_DEPENDS
       ${MSPTI_UPSTREAM_DIR}/csrc/activity/*.cpp
       ${MSPTI_UPSTREAM_DIR}/csrc/callback/*.cpp
       ${MSPTI_UPSTREAM_DIR}/csrc/common/*.cpp)
  add_library(mspti_upstream SHARED ${mspti_upstream_sources})
  set_target_properties(mspti_upstream PROPERTIES
    OUTPUT_NAME mspti
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/upstream/lib
    CXX_STANDARD 14
    CXX_EXTENSIONS OFF)
  target_include_directories(mspti_upstream PRIVATE ${MSPTI_UPSTREAM_DIR} ${MSPTI_INCLUDE_DIR})
  target_compile_options(mspti_upstream PRIVATE
    -fstack-protector-all -fno-strict-aliasing -fno-common -fvisibility=hidden -fvisibility-inlines-hidden
    -Wfloat-equal -Wextra -Werror=uninitialized -Werror=return-type -Wall -DMSPTI_LIB -D_FORTIFY_SOURCE=2 -O2)
  target_link_options(mspti_upstream PRIVATE -Wl,-z,relro,-z,now,-z,noexecstack -Wl,-Bsymbolic -Wl,--exclude-libs=ALL)
  target_link_libraries(mspti_upstream PRIVATE ${CMAKE_DL_LIBS} c_sec Threads::Threads)

  # <build>/ascend-upstream: include and lib64 as <build>/ascend's, but libmspti.so and mspti/*.h are msPTI's.
  set(root ${CMAKE_BINARY_DIR}/ascend-upstream)
  file(MAKE_DIRECTORY ${root}/include ${root}/lib64 ${root}/python ${root}/bin ${root}/opp)
  file(GLOB entries RELATIVE ${MSPTI_INCLUDE_DIR} ${MSPTI_INCLUDE_DIR}/*)
  foreach(entry IN LISTS entries)
    if(NOT entry STREQUAL "mspti")
      file(CREATE_LINK ${MSPTI_INCLUDE_DIR}/${entry} ${root}/include/${entry} SYMBOLIC)
    endif()
  endforeach()
  file(CREATE_LINK ${MSPTI_UPSTREAM_DIR}/csrc/include ${root}/include/mspti SYMBOLIC)
  get_directory_property(cann_names DIRECTORY ${PROJECT_SOURCE_DIR}/src/vnpu DEFINITION VNPU_CANN_LIBRARY_NAMES)
  foreach(name vnpu ${cann_names} vnpu_hccl_mpi c_sec ascendalog profapi ascend_hal)
    file(CREATE_LINK ../../lib/lib${name}.so ${root}/lib64/lib${name}.so SYMBOLIC)
  endforeach()
  file(CREATE_LINK ../../upstream/lib/libmspti.so ${root}/lib64/libmspti.so SYMBOLIC)
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/upstream/python)
  file(CREATE_LINK ${CMAKE_BINARY_DIR}/upstream/python ${root}/python/site-packages SYMBOLIC)
  # msPTI's Python package (its mspti/ folder): the .py files copied into <build>/upstream/python and
  # its mspti_C extension, built from its sources as its mspti/csrc/CMakeLists.txt does, in mspti/lib64.
  find_package(Python 3.8 COMPONENTS Interpreter Development.Module)
  if(Python_Development.Module_FOUND)
    file(COPY ${MSPTI_UPSTREAM_DIR}/mspti DESTINATION ${CMAKE_BINARY_DIR}/upstream/python
         FILES_MATCHING PATTERN "*.py" PATTERN "csrc" EXCLUDE)
    set(whl ${MSPTI_UPSTREAM_DIR}/mspti/csrc)
    Python_add_library(mspti_upstream_python MODULE
      ${whl}/init.cpp ${whl}/mspti_adapter.cpp ${whl}/activity_buffer_pool.cpp
      ${MSPTI_UPSTREAM_DIR}/csrc/common/inject/plog_inject.cpp ${MSPTI_UPSTREAM_DIR}/csrc/common/function_loader.cpp
      ${MSPTI_UPSTREAM_DIR}/csrc/common/utils.cpp)
    set_target_properties(mspti_upstream_python PROPERTIES
      OUTPUT_NAME mspti_C PREFIX "" SUFFIX ".so"
      LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/upstream/python/mspti/lib64
      CXX_STANDARD 14 CXX_EXTENSIONS OFF)
    target_include_directories(mspti_upstream_python PRIVATE ${MSPTI_UPSTREAM_DIR} ${MSPTI_INCLUDE_DIR} ${whl})
    target_compile_options(mspti_upstream_python PRIVATE
      -fstack-protector-all -fno-strict-aliasing -fno-common -fvisibility=hidden -fvisibility-inlines-hidden
      -DMSPTI_LIB -D_FORTIFY_SOURCE=2 -DASCEND_CI_LIMITED_PY37 -O2)
    target_link_options(mspti_upstream_python PRIVATE -Wl,-Bsymbolic -Wl,--exclude-libs=ALL)
    target_link_libraries(mspti_upstream_python PRIVATE mspti_upstream c_sec ${CMAKE_DL_LIBS})
  endif()

  set(VNPU_CANN_ROOT ${root})
  configure_file(${PROJECT_SOURCE_DIR}/src/cann_extras/set_env.sh.in ${root}/set_env.sh @ONLY)
  unset(VNPU_CANN_ROOT)
  message(STATUS "msPTI's libmspti.so from ${MSPTI_UPSTREAM_DIR}: ${root}")
else()
  message(STATUS "msPTI's own library is not built (set MSPTI_UPSTREAM_SOURCE to msPTI's source tree to test on it)")
endif()
