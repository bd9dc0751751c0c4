# CPack: `cpack -G DEB` in the build directory packs what `cmake --install` installs, under /usr.
set(CPACK_PACKAGE_NAME mspti)
set(CPACK_PACKAGE_VENDOR "mspti")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "msPTI-compatible profiling tools interface, C++/Python/Java monitors, virtual NPU")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
  "libmspti.so (the msPTI C ABI, binary-compatible with Ascend's msPTI), libmspti_monitor.so (C++ Monitor API), "
  "the Python packages mspti, vnpu and mspti_trace, mspti.jar (Java bindings), and a CPU-backed virtual NPU "
  "(libvnpu.so; its CANN-style tree is /usr/lib/mspti/vnpu).")
set(CPACK_PACKAGE_CONTACT "mspti maintainers <mspti@localhost>")
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
set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3 (>= 3.${Python3_VERSION_MINOR}), python3 (<< 3.${next_minor})")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3-numpy, default-jre-headless | java11-runtime-headless")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "openmpi-bin")
include(CPack)
