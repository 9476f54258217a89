# ctest helper: fails unless every test case of the Catch2 executable EXE is registered as exactly one ctest test of
# the build tree DIR. It counts the cases EXE lists, and the ctest tests named PREFIX* whose command runs EXE (the
# tests catch_discover_tests wrote); the two must be equal. A name that broke discovery shows here: cases merged into
# one test (an unbalanced '[') make fewer tests, a name split at ';' more.
# Usage: cmake -DCTEST=<ctest> -DDIR=<build dir> -DEXE=<test executable> -DPREFIX=<"target:"> -DCATCH2_MAJOR=<2|3>
#        -P expect_every_case_registered.cmake
# Errors: FATAL_ERROR with both counts and the tests registered; FATAL_ERROR if EXE or ctest cannot list.
include("${CMAKE_CURRENT_LIST_DIR}/catch_cases.cmake")
tc_list_catch_cases("${EXE}" "" out rc)
if(rc LESS 0)
  message(FATAL_ERROR "${EXE} could not list its test cases (exit ${rc})")
endif()
# Counted by line, with the characters CMake's lists read set aside (cmake/check_test_names.cmake says why).
string(REGEX REPLACE "[][;]" "_" out "${out}")
string(REGEX MATCHALL "[^\n]+" cases "${out}")
list(LENGTH cases case_count)

if(NOT PREFIX MATCHES "^[A-Za-z0-9_]+:$")  # a target's name and ':', so that it is its own regular expression
  message(FATAL_ERROR "PREFIX must be a target name and ':', got \"${PREFIX}\"")
endif()
execute_process(COMMAND "${CTEST}" --test-dir "${DIR}" --show-only=json-v1 -R "^${PREFIX}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE json ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ctest --show-only=json-v1 failed in ${DIR} (exit ${rc}):\n${err}")
endif()
string(JSON tests GET "${json}" tests)
string(JSON test_count LENGTH "${tests}")
set(registered 0)
set(names "")
if(test_count GREATER 0)
  math(EXPR last "${test_count} - 1")
  foreach(i RANGE ${last})
    string(JSON command ERROR_VARIABLE no_command GET "${tests}" ${i} command 0)
    if(no_command OR NOT command STREQUAL EXE)
      continue()
    endif()
    math(EXPR registered "${registered} + 1")
    string(JSON name GET "${tests}" ${i} name)
    string(APPEND names "\n  ${name}")
  endforeach()
endif()
if(NOT registered EQUAL case_count)
  message(FATAL_ERROR "${EXE} has ${case_count} test cases, but ${registered} ctest tests run it (a test name broke "
                      "discovery: cmake/check_test_names.cmake lists the rules). Registered:${names}")
endif()
message("${case_count} test cases of ${EXE}, each its own ctest test")
