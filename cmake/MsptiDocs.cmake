# 'docs' target: Doxygen HTML of the public headers, failing on any warning.
find_package(Doxygen)
if(DOXYGEN_FOUND)
  add_custom_target(docs
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/docs
    COMMAND ${CMAKE_COMMAND} -E env MSPTI_DOCS_OUT=${CMAKE_BINARY_DIR}/docs
            MSPTI_DOCS_GENERATED=${MSPTI_GENERATED_INCLUDE_DIR} ${DOXYGEN_EXECUTABLE} ${CMAKE_SOURCE_DIR}/Doxyfile
    WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
    COMMENT "Doxygen: public headers -> ${CMAKE_BINARY_DIR}/docs/html")
else()
  message(STATUS "Doxygen not found: no 'docs' target")
endif()
