# cmake --install: libraries in <prefix>/lib, headers in <prefix>/include, mspti.jar in
# <prefix>/share/java (whose loader finds its JNI libraries in ../../lib), the Python packages in
# <prefix>/lib/mspti/python (put that on PYTHONPATH). Installed libraries find each other by $ORIGIN.

foreach(target mspti mspti_monitor vnpu c_sec ascendalog mspti_java vnpu_java)
  if(TARGET ${target})
    install(TARGETS ${target} LIBRARY DESTINATION lib)
  endif()
endforeach()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ DESTINATION include)
install(DIRECTORY ${MSPTI_GENERATED_INCLUDE_DIR}/ DESTINATION include)
if(DEFINED MSPTI_JAR)
  install(FILES ${MSPTI_JAR} DESTINATION share/java)
endif()
if(DEFINED MSPTI_PYTHON_DIR)
  install(DIRECTORY ${MSPTI_PYTHON_DIR}/ DESTINATION lib/mspti/python
          PATTERN "__pycache__" EXCLUDE)
endif()
