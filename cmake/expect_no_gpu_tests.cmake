# ctest helper: fails if the Catch2 executable EXE has any test case tagged [gpu]. Executables registered without a
# GPU discovery pass (tc_add_catch_tests HOST_ONLY, tc_chapter_exercises without GPU_TESTS) would never run one.
# Usage: cmake -DEXE=<test executable> -DCATCH2_MAJOR=<2|3> -P expect_no_gpu_tests.cmake
if(CATCH2_MAJOR EQUAL 2)
  execute_process(COMMAND "${EXE}" "[gpu]" --list-test-names-only RESULT_VARIABLE rc OUTPUT_VARIABLE out)
else()
  execute_process(COMMAND "${EXE}" "[gpu]" --list-tests --verbosity quiet RESULT_VARIABLE rc OUTPUT_VARIABLE out)
endif()
string(STRIP "${out}" out)
if(out)
  message(FATAL_ERROR "${EXE} has test cases tagged [gpu], but no GPU discovery pass registers them:\n${out}\n"
                      "declare them (drop HOST_ONLY, or pass GPU_TESTS to tc_chapter_exercises)")
endif()
message("no [gpu] test cases in ${EXE}, as declared")
