# Host test of cmake/run_sanitizer.cmake: runs it on a stand-in sanitizer (fake_compute_sanitizer.sh) in every mode
# and demands the outcome each mode must have. A crash that prints no summary must fail, not be Skipped; only the
# sanitizer's own refusal and the binary's own "skipped:" with exit 77 may be Skipped.
# Usage: cmake -DRUNNER=<run_sanitizer.cmake> -DFAKE=<fake_compute_sanitizer.sh> -P check_run_sanitizer.cmake
set(expect_clean passed)
set(expect_hazards failed)
set(expect_mismatch failed)
set(expect_crash failed)
set(expect_silent failed)
set(expect_refuse skipped)
set(expect_no_gpu skipped)
set(expect_unexplained_77 failed)
set(wrong "")
foreach(mode IN ITEMS clean hazards mismatch crash silent refuse no_gpu unexplained_77)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env FAKE_SANITIZER=${mode}
                          ${CMAKE_COMMAND} -DTOOL=memcheck -DCOMMAND=some_chapter_binary -DSANITIZER=${FAKE}
                          -P ${RUNNER}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    set(outcome failed)
  elseif("${out}${err}" MATCHES "tc-test-skipped:")
    set(outcome skipped)
  else()
    set(outcome passed)
  endif()
  message("${mode}: ${outcome} (must be ${expect_${mode}})")
  if(NOT outcome STREQUAL expect_${mode})
    list(APPEND wrong "${mode}: ${outcome}, must be ${expect_${mode}}")
  endif()
endforeach()
if(wrong)
  list(JOIN wrong "; " wrong)
  message(FATAL_ERROR "run_sanitizer.cmake decided wrongly: ${wrong}")
endif()
