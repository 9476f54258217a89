# ctest helper: fails if a test case of the Catch2 executable EXE has ';' in its name. ctest takes ';' as a list
# separator, so catch_discover_tests registers such a case as two tests that each run something else.
# Usage: cmake -DEXE=<test executable> -DCATCH2_MAJOR=<2|3> -P expect_no_semicolon_names.cmake
if(CATCH2_MAJOR EQUAL 2)
  execute_process(COMMAND "${EXE}" --list-test-names-only OUTPUT_VARIABLE out)
else()
  execute_process(COMMAND "${EXE}" --list-tests --verbosity quiet OUTPUT_VARIABLE out)
endif()
string(REGEX MATCHALL "[^\n]*;[^\n]*" bad "${out}")
if(bad)
  message(FATAL_ERROR "${EXE}: test names with ';' (ctest would split them): ${bad}")
endif()
message("no ';' in the test names of ${EXE}")
