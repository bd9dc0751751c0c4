# mspti_add_sample(<name> [LIBS ...]): builds samples/<name>/main.cpp against our headers, the
# virtual NPU and libmspti, and adds the CTest sample_<name>, which runs it under
# LD_PRELOAD=libmspti.so and checks its output against samples/<name>/expected.txt
# (lines "<count><TAB><regex>": exactly <count> output lines must match <regex>; also "ordered",
# "distinct" and "same" lines, described in common/check_output.cmake), and its exit status.
find_package(Threads REQUIRED)

function(mspti_add_sample name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "LIBS" ${ARGN})
  set(target sample_${name})
  add_executable(${target} ${CMAKE_CURRENT_SOURCE_DIR}/main.cpp)
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${name} RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  target_include_directories(${target} PRIVATE ${MSPTI_INCLUDE_DIR} ${PROJECT_SOURCE_DIR}/samples)
  # The runtime first, as in a CANN program: only LD_PRELOAD puts libmspti in front of it.
  target_link_libraries(${target} PRIVATE vnpu mspti Threads::Threads ${CMAKE_DL_LIBS} ${ARG_LIBS} mspti_warnings)
  set(env "LD_PRELOAD=$<TARGET_FILE:mspti>")
  if(MSPTI_SANITIZE MATCHES "address")
    set(env "${env}|ASAN_OPTIONS=verify_asan_link_order=0")
  endif()
  add_test(NAME ${target}
    COMMAND ${CMAKE_COMMAND} -DSAMPLE=$<TARGET_FILE:${target}> -DENV=${env}
            -DEXPECTED=${CMAKE_CURRENT_SOURCE_DIR}/expected.txt -P ${PROJECT_SOURCE_DIR}/samples/common/check_output.cmake)
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 60)
  endif()
  set_tests_properties(${target} PROPERTIES TIMEOUT ${ARG_TIMEOUT} LABELS sample)
endfunction()
