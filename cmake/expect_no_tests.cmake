# ctest helper: fails if the Catch2 executable EXE has any test case matching SPEC ("[gpu]": tagged gpu; "~[gpu]":
# not tagged gpu). Executables registered without a discovery pass for that kind (tc_add_catch_tests HOST_ONLY;
# tc_chapter_exercises without GPU_TESTS or HOST_TESTS) would never run such a test.
# Usage: cmake -DEXE=<test executable> -DSPEC=<Catch2 test spec> -DCATCH2_MAJOR=<2|3> -P expect_no_tests.cmake
include("${CMAKE_CURRENT_LIST_DIR}/catch_cases.cmake")
tc_list_catch_cases("${EXE}" "${SPEC}" out rc)
string(STRIP "${out}" out)
if(out)
  message(FATAL_ERROR "${EXE} has test cases matching ${SPEC}, but no discovery pass registers them:\n${out}\n"
                      "declare them (tc_add_catch_tests without HOST_ONLY; GPU_TESTS or HOST_TESTS for "
                      "tc_chapter_exercises)")
endif()
message("no test cases matching ${SPEC} in ${EXE}, as declared")
