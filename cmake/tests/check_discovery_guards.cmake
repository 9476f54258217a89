# The guard test cmake:broken_test_names_are_caught. Three guards stand between a test name and a test that runs
# nothing; each must see the bug on FIXTURE (common/tests/catch_discovery_fixture.cpp, whose case "reals in [-1, 1)"
# holds an unbalanced '['):
#   1. the build-time name check (cmake/check_test_names.cmake) must fail, naming the case;
#   2. the count check (cmake/expect_every_case_registered.cmake) must fail on the registration Catch2 2's discovery
#      made of such a name: the case and every later one merged into one ctest test (written here by hand, so that
#      the guard does not depend on how the installed Catch2 splits);
#   3. that merged test, run by ctest, must fail: its filter matches no case, and the project's test main fails a run
#      that ran no test case (common/tests/catch_main.cpp).
# Usage: cmake -DFIXTURE=<exe> -DCATCH2_MAJOR=<2|3> -DSCRATCH=<dir> -DCTEST=<ctest> -DCMAKE_DIR=<project>/cmake
#        -P check_discovery_guards.cmake
file(REMOVE_RECURSE "${SCRATCH}")
file(MAKE_DIRECTORY "${SCRATCH}")
set(wrong "")

execute_process(COMMAND "${CMAKE_COMMAND}" "-DEXE=${FIXTURE}" -DCATCH2_MAJOR=${CATCH2_MAJOR}
                        -P "${CMAKE_DIR}/check_test_names.cmake"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("1. name check: exit ${rc}")
string(REGEX REPLACE "[ \n]+" " " said "${out}${err}")
if(rc EQUAL 0 OR NOT "${said}" MATCHES "\"reals in \\[-1, 1\\)\": '\\[' or '\\]'")
  string(APPEND wrong "\n1. the name check let \"reals in [-1, 1)\" pass:\n${out}${err}")
endif()

file(WRITE "${SCRATCH}/CTestTestfile.cmake"
  "add_test([=[fixture:a first case]=] \"${FIXTURE}\" [=[a first case]=])\n"
  "add_test([=[fixture:reals in [-1, 1)]=] \"${FIXTURE}\" [=[reals in \\[-1\\, 1)\\;a last case]=])\n")
execute_process(COMMAND "${CMAKE_COMMAND}" "-DCTEST=${CTEST}" "-DDIR=${SCRATCH}" "-DEXE=${FIXTURE}" -DPREFIX=fixture:
                        -DCATCH2_MAJOR=${CATCH2_MAJOR} -P "${CMAKE_DIR}/expect_every_case_registered.cmake"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("2. count check: exit ${rc}")
string(REGEX REPLACE "[ \n]+" " " said "${out}${err}")  # CMake wraps a long message's lines
if(rc EQUAL 0 OR NOT "${said}" MATCHES "has 3 test cases, but 2 ctest tests run it")
  string(APPEND wrong "\n2. the count check passed 3 cases registered as 2 tests:\n${out}${err}")
endif()

execute_process(COMMAND "${CTEST}" --test-dir "${SCRATCH}" --output-on-failure
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("3. ctest on that registration: exit ${rc}")
if(NOT "${out}" MATCHES "fixture:a first case [.]+ +Passed")
  string(APPEND wrong "\n3. the plain case did not pass:\n${out}${err}")
endif()
if(NOT "${out}" MATCHES "fixture:reals in \\[-1, 1\\) [.]+[* ]*Failed" OR NOT "${out}" MATCHES "no test case matched")
  string(APPEND wrong "\n3. the merged test, which runs no case, did not fail:\n${out}${err}")
endif()
if(wrong)
  message(FATAL_ERROR "a guard missed a broken test name:${wrong}")
endif()
message("every guard caught the broken name")
