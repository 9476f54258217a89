# The guard test cmake:a_failing_test_never_reads_as_skipped. A Catch2 test executable whose main exits with its count
# of failed assertions (Catch2 2.x; 3.3 to 3.7.0) makes a test with exactly as many failed checks as the skip code
# (77 under Catch2 2, 4 under Catch2 3) read as Skipped. This registers FIXTURE's test cases
# (common/tests/catch_exit_code_fixture.cpp, built with the project's test main) in a scratch ctest directory, with
# the SKIP_RETURN_CODE each collision needs, runs ctest there, and requires its verdicts: Failed for 77, 4 and 1
# failed checks, Skipped for the fixture's skip (registered with SKIP_CODE, the installed Catch2's), Passed for a pass.
# Usage: cmake -DFIXTURE=<exe> -DSKIP_CODE=<77|4> -DSCRATCH=<dir> -DCTEST=<ctest> -P check_catch_exit_codes.cmake
file(REMOVE_RECURSE "${SCRATCH}")
file(MAKE_DIRECTORY "${SCRATCH}")
# name | test case | SKIP_RETURN_CODE | the verdict ctest must give
set(cases
  "failed_77|77 failed checks|77|Failed"
  "failed_4|4 failed checks|4|Failed"
  "failed_1|1 failed check|${SKIP_CODE}|Failed"
  "skip|a skip|${SKIP_CODE}|Skipped"
  "pass|a pass|${SKIP_CODE}|Passed")
set(testfile "")
foreach(c IN LISTS cases)
  string(REPLACE "|" ";" f "${c}")
  list(GET f 0 name)
  list(GET f 1 spec)
  list(GET f 2 code)
  string(APPEND testfile "add_test(${name} \"${FIXTURE}\" \"${spec}\")\n")
  string(APPEND testfile "set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE ${code})\n")
endforeach()
file(WRITE "${SCRATCH}/CTestTestfile.cmake" "${testfile}")
execute_process(COMMAND "${CTEST}" --test-dir "${SCRATCH}" OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(wrong "")
foreach(c IN LISTS cases)
  string(REPLACE "|" ";" f "${c}")
  list(GET f 0 name)
  list(GET f 1 spec)
  list(GET f 2 code)
  list(GET f 3 want)
  execute_process(COMMAND "${FIXTURE}" "${spec}" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if("${out}" MATCHES "Test +#[0-9]+: ${name} [.]+[* ]*([A-Za-z]+)")
    set(got "${CMAKE_MATCH_1}")
  else()
    set(got "(no verdict)")
  endif()
  message("\"${spec}\": exit ${rc}, SKIP_RETURN_CODE ${code}: ctest says ${got}, must say ${want}")
  if(NOT got STREQUAL want)
    string(APPEND wrong " \"${spec}\"")
  endif()
endforeach()
if(wrong)
  message(FATAL_ERROR "ctest's verdict is wrong for${wrong}:\n${out}${err}")
endif()
