# cmake --install: a relocatable prefix (every path in it is relative to where it lies):
#   lib/                       libmspti.so, libmspti_monitor.so, libvnpu.so, the JNI libraries, libmspti_trace.so
#   include/mspti, include/mstx          the msPTI headers (only these: see the virtual CANN below)
#   lib/cmake/mspti            find_package(mspti): targets mspti::mspti and mspti::monitor
#   lib/pkgconfig              mspti.pc, mspti-monitor.pc
#   lib/python3.X/dist-packages  the Python packages (mspti, vnpu, mspti_trace); Debian's python3 finds
#                              them there for the prefixes /usr and /usr/local
#   share/java/mspti.jar       with its JNI libraries inside (org.mspti.NativeLoader); mspti-sources.jar,
#                              mspti-javadoc.jar beside it
#   share/doc/mspti            copyright, changelog.gz; html/ (Doxygen) and java/ (javadoc) where built
#   share/man/man1             mspti-trace.1.gz (help2man)
#   lib/mspti/vnpu             the virtual CANN, laid out like a CANN toolkit (include/, lib64/,
#                              set_env.sh): its stand-in acl/, hccl/, securec.h... headers and CANN-named
#                              libraries stay out of include/ and lib/, where they would shadow a real CANN.
# Installed libraries and extension modules find each other through $ORIGIN-relative runpaths.
include(CMakePackageConfigHelpers)

set(MSPTI_INSTALL_CMAKEDIR lib/cmake/mspti)
set(MSPTI_INSTALL_VNPUDIR lib/mspti/vnpu)
set(MSPTI_INSTALL_PYTHONDIR lib/python${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}/dist-packages
    CACHE STRING "Where the Python packages go, relative to the prefix")

# --- the C ABI and the C++ Monitor API: exported targets, CMake package, pkg-config ---------------
set_target_properties(mspti_monitor PROPERTIES EXPORT_NAME monitor)
target_compile_features(mspti_monitor INTERFACE cxx_std_20)  # the record headers use C++20 (defaulted ==)
install(TARGETS mspti mspti_monitor EXPORT msptiTargets
        LIBRARY DESTINATION lib
        INCLUDES DESTINATION include include/mspti)  # include/mspti as in CANN: "mspti.h"
install(EXPORT msptiTargets NAMESPACE mspti:: DESTINATION ${MSPTI_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/msptiConfig.cmake.in
  ${CMAKE_BINARY_DIR}/install/msptiConfig.cmake
  INSTALL_DESTINATION ${MSPTI_INSTALL_CMAKEDIR}
  PATH_VARS MSPTI_INSTALL_VNPUDIR MSPTI_INSTALL_PYTHONDIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/install/msptiConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)  # 0.x: a minor release may change the API
install(FILES ${CMAKE_BINARY_DIR}/install/msptiConfig.cmake ${CMAKE_BINARY_DIR}/install/msptiConfigVersion.cmake
        DESTINATION ${MSPTI_INSTALL_CMAKEDIR})
foreach(pc mspti mspti-monitor)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/${pc}.pc.in ${CMAKE_BINARY_DIR}/install/${pc}.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/install/${pc}.pc DESTINATION lib/pkgconfig)
endforeach()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/mspti ${PROJECT_SOURCE_DIR}/include/mstx DESTINATION include)
install(DIRECTORY ${MSPTI_GENERATED_INCLUDE_DIR}/ DESTINATION include)

# --- the other libraries -------------------------------------------------------------------------------
foreach(target vnpu vnpu_hccl_mpi profapi ascend_hal mspti_java vnpu_java)
  if(TARGET ${target})
    install(TARGETS ${target} LIBRARY DESTINATION lib)
  endif()
endforeach()

# --- the virtual CANN: <prefix>/lib/mspti/vnpu, as <build>/ascend is in the build tree --------------
if(TARGET vnpu)
  # The whole include/ tree, as in <build>/ascend/include (a CANN toolkit ships mspti/ and mstx/ too).
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ ${MSPTI_GENERATED_INCLUDE_DIR}/
          DESTINATION ${MSPTI_INSTALL_VNPUDIR}/include)
  install(TARGETS c_sec ascendalog LIBRARY DESTINATION ${MSPTI_INSTALL_VNPUDIR}/lib64)
  # lib64 names the CANN libraries a program links; all of them are libvnpu (in <prefix>/lib).
  get_directory_property(cann_names DIRECTORY ${PROJECT_SOURCE_DIR}/src/vnpu DEFINITION VNPU_CANN_LIBRARY_NAMES)
  set(links)
  foreach(name vnpu ${cann_names})
    list(APPEND links lib${name}.so=libvnpu.so)
  endforeach()
  list(APPEND links libmspti.so=libmspti.so libprofapi.so=libprofapi.so libascend_hal.so=libascend_hal.so)
  if(TARGET vnpu_hccl_mpi)
    list(APPEND links libvnpu_hccl_mpi.so=libvnpu_hccl_mpi.so)
  endif()
  # The shortest relative link (lintian: lengthy-symlink), e.g. ../../../python3.11/dist-packages.
  file(RELATIVE_PATH vnpu_to_python /p/${MSPTI_INSTALL_VNPUDIR}/python /p/${MSPTI_INSTALL_PYTHONDIR})
  install(CODE "
    set(root \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${MSPTI_INSTALL_VNPUDIR}\")
    file(MAKE_DIRECTORY \"\${root}/lib64\" \"\${root}/python\" \"\${root}/bin\" \"\${root}/opp\")
    foreach(link ${links})
      string(REPLACE \"=\" \";\" link \"\${link}\")
      list(GET link 0 name)
      list(GET link 1 target)
      file(REMOVE \"\${root}/lib64/\${name}\")
      file(CREATE_LINK \"../../../\${target}\" \"\${root}/lib64/\${name}\" SYMBOLIC)
    endforeach()
    file(REMOVE \"\${root}/python/site-packages\")
    file(CREATE_LINK \"${vnpu_to_python}\" \"\${root}/python/site-packages\" SYMBOLIC)
  ")
  set(VNPU_CANN_ROOT "${CMAKE_INSTALL_PREFIX}/${MSPTI_INSTALL_VNPUDIR}")  # used only when not sourced from bash
  configure_file(${PROJECT_SOURCE_DIR}/src/cann_extras/set_env.sh.in ${CMAKE_BINARY_DIR}/install/set_env.sh @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/install/set_env.sh DESTINATION ${MSPTI_INSTALL_VNPUDIR})
endif()

# --- API documentation, where built (targets docs and javadoc) --------------------------------------
install(DIRECTORY ${CMAKE_BINARY_DIR}/docs/html DESTINATION share/doc/mspti OPTIONAL)  # Doxygen
install(DIRECTORY ${CMAKE_BINARY_DIR}/docs/java DESTINATION share/doc/mspti OPTIONAL)  # javadoc

# --- Java --------------------------------------------------------------------------------------------
if(DEFINED MSPTI_JAR)
  install(FILES ${MSPTI_JAR} ${MSPTI_SOURCES_JAR} ${MSPTI_JAVADOC_JAR} DESTINATION share/java)
endif()

# --- Python: the packages where Debian's python3 looks, extension modules with relative runpaths -------
if(DEFINED MSPTI_PYTHON_DIR)
  install(DIRECTORY ${MSPTI_PYTHON_DIR}/ DESTINATION ${MSPTI_INSTALL_PYTHONDIR}
          PATTERN "__pycache__" EXCLUDE PATTERN "*.so" EXCLUDE PATTERN "_paths.py" EXCLUDE)
  # From <pythondir>/<package>/: the prefix's lib, or (in the wheel) the libraries in mspti/_libs.
  file(RELATIVE_PATH to_lib /p/${MSPTI_INSTALL_PYTHONDIR}/mspti /p/lib)
  set(py_rpath "$ORIGIN/${to_lib};$ORIGIN/_libs;$ORIGIN/../mspti/_libs")
  foreach(module mspti_python:mspti mspti_python_mstx:mspti vnpu_python:vnpu)
    string(REPLACE ":" ";" module ${module})
    list(GET module 0 target)
    list(GET module 1 package)
    if(TARGET ${target})
      set_target_properties(${target} PROPERTIES INSTALL_RPATH "${py_rpath}")
      install(TARGETS ${target} LIBRARY DESTINATION ${MSPTI_INSTALL_PYTHONDIR}/${package})
    endif()
  endforeach()
  # _paths.py: where mspti's loader finds the libraries, relative to itself (vnpu's native module
  # finds them by its RPATH).
  foreach(package mspti)
    file(WRITE ${CMAKE_BINARY_DIR}/install/${package}_paths.py
         "\"\"\"Written by CMake for an installed prefix: the libraries are in <prefix>/lib.\"\"\"\n"
         "import os\n\nLIB_DIR = os.path.normpath(os.path.join(os.path.dirname(__file__), \"${to_lib}\"))\n")
    install(FILES ${CMAKE_BINARY_DIR}/install/${package}_paths.py DESTINATION ${MSPTI_INSTALL_PYTHONDIR}/${package}
            RENAME _paths.py)
  endforeach()
  # mspti-trace: the launcher finds its package and libraries relative to <prefix>/bin.
  set(MSPTI_TRACE_PY_DIR ../${MSPTI_INSTALL_PYTHONDIR})
  set(MSPTI_TRACE_GENERATED_PY_DIR ../${MSPTI_INSTALL_PYTHONDIR})
  set(MSPTI_TRACE_LIB_DIR ../lib)
  set(MSPTI_TRACE_CHILD_PY_DIR ../${MSPTI_INSTALL_PYTHONDIR})
  configure_file(${PROJECT_SOURCE_DIR}/src/trace/mspti-trace.in ${CMAKE_BINARY_DIR}/install/mspti-trace @ONLY)
  install(PROGRAMS ${CMAKE_BINARY_DIR}/install/mspti-trace DESTINATION bin)
  # The wheel (build/dist/mspti-<version>-cpXY-cpXY-linux_<arch>.whl), offline, after a build.
  add_custom_target(python_wheel
    COMMAND bash ${PROJECT_SOURCE_DIR}/cmake/wheel/build_wheel.sh ${CMAKE_BINARY_DIR} ${CMAKE_BINARY_DIR}/dist
    VERBATIM)
endif()

include(MsptiPackaging)
