# CPack: `cpack -G DEB` in the build directory packs what `cmake --install` installs, under /usr.
set(CPACK_PACKAGE_NAME mspti)
set(CPACK_PACKAGE_VENDOR "mspti")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "profiling interface compatible with msPTI, monitors, virtual NPU")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
  "libmspti.so (the msPTI C ABI, binary-compatible with Ascend's msPTI), libmspti_monitor.so (C++ Monitor API), "
  "the Python packages mspti, vnpu and mspti_trace, mspti.jar (Java bindings), and a CPU-backed virtual NPU "
  "(libvnpu.so; its CANN-style tree is /usr/lib/mspti/vnpu).")
set(CPACK_PACKAGE_CONTACT "mspti maintainers <mspti-maintainers@example.org>")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)  # debug information stays in the build tree
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # mspti_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# The shared-library dependencies come from dpkg-shlibdeps; the package's own libraries are
# resolved within it (they find each other by $ORIGIN).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS
    ${CMAKE_BINARY_DIR}/lib ${CMAKE_BINARY_DIR}/python/mspti ${CMAKE_BINARY_DIR}/python/vnpu)
math(EXPR next_minor "${Python3_VERSION_MINOR} + 1")  # the extension modules are built for one Python ABI
# numpy: mspti-trace's summary and analyze compute on numpy columns.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3 (>= 3.${Python3_VERSION_MINOR}), python3 (<< 3.${next_minor}), python3-numpy")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "default-jre-headless | java11-runtime-headless")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "openmpi-bin")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)  # control files 0644, scripts 0755 (lintian)
# shlibs and the ldconfig trigger for the shared libraries in /usr/lib (lintian: no-shlibs,
# lacks-ldconfig-trigger).
# (CPack's GENERATE_SHLIBS wrote none here: the two versioned libraries are listed by hand.)
file(WRITE ${CMAKE_BINARY_DIR}/install/deb/shlibs
     "libmspti 0 mspti (>= ${PROJECT_VERSION})\nlibmspti_monitor 0 mspti (>= ${PROJECT_VERSION})\n")
# prerm: Python's byte code, written after the install, goes with the package (as py3clean does).
configure_file(${CMAKE_CURRENT_LIST_DIR}/deb/prerm.in ${CMAKE_BINARY_DIR}/install/deb/prerm @ONLY
               FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
configure_file(${CMAKE_CURRENT_LIST_DIR}/deb/triggers ${CMAKE_BINARY_DIR}/install/deb/triggers COPYONLY)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${CMAKE_BINARY_DIR}/install/deb/prerm ${CMAKE_BINARY_DIR}/install/deb/triggers
    ${CMAKE_BINARY_DIR}/install/deb/shlibs)

# What Debian asks of every package (checked by lintian in tests/install): /usr/share/doc/mspti with
# the copyright and, a native package, changelog.gz; a manual page for each program (mspti-trace's
# written by help2man from its --help, at build time).
set(deb_dir ${CMAKE_BINARY_DIR}/install/deb)
file(MAKE_DIRECTORY ${deb_dir})
configure_file(${CMAKE_CURRENT_LIST_DIR}/deb/changelog.in ${deb_dir}/changelog @ONLY)
execute_process(COMMAND gzip -9nf ${deb_dir}/changelog RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gzip -9n ${deb_dir}/changelog failed (${rc}): is gzip installed?")
endif()
install(FILES ${CMAKE_CURRENT_LIST_DIR}/deb/copyright ${deb_dir}/changelog.gz DESTINATION share/doc/mspti)
set(launcher ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}/mspti-trace)
if(DEFINED MSPTI_PYTHON_DIR AND EXISTS ${launcher})
  find_program(HELP2MAN help2man)
  if(HELP2MAN)
    file(GLOB trace_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/python/mspti_trace/*.py)
    set(man ${CMAKE_BINARY_DIR}/man/mspti-trace.1)
    add_custom_command(OUTPUT ${man}.gz
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
      COMMAND ${HELP2MAN} --no-info --no-discard-stderr --version-string=${PROJECT_VERSION} --section=1
              "--name=profile a program into a timeline with no code changes" --output=${man} ${launcher}
      COMMAND gzip -9nf ${man}
      DEPENDS ${launcher} ${trace_sources}
      COMMENT "help2man: ${man}.gz"
      VERBATIM)
    add_custom_target(mspti_trace_man ALL DEPENDS ${man}.gz)
    install(FILES ${man}.gz DESTINATION share/man/man1)
  else()
    message(WARNING "help2man not found (apt-get install help2man): no manual page for mspti-trace")
  endif()
endif()
include(CPack)
