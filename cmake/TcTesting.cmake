# Catch2 and the test conventions of this project.
#
# Catch2 is taken from the system: v3 (Ubuntu 24.04, Fedora) or Debian 12's packaged 2.13.10; FetchContent of v3 is
# the last fallback. Every test executable links the project's own main (tc_catch_main, common/tests/catch_main.cpp,
# compiled once), not Catch2's: Catch2's exits with the count of failed assertions, so 77 (or 4) failed checks would
# read as a skip; ours exits 1 on any failure and the skip code for a skip alone.
#
# Every test executable is registered twice with catch_discover_tests:
#   - test cases tagged [gpu] get ctest label "gpu" and a SKIP_RETURN_CODE, so that where there is no suitable GPU they
#     are reported as Skipped, never Passed. The code is version-specific: Catch2 2.x has no skip, so the test exits 77
#     (tc::test::require_gpu in tc_test/catch.hpp); Catch2 3.x uses SKIP(), and the process exits 4.
#   - all other test cases get label "host".
# A [gpu] case also tagged [serial] times the GPU (a ceiling, a rate) and runs alone (RUN_SERIAL), where its executable
# asks for that (tc_add_catch_tests' SERIAL_GPU): other tests' kernels on the same GPU at once (ctest -j, as the h200
# test preset's 16 jobs) would slow what it measures and fail it.
find_package(Catch2 3.3 CONFIG QUIET)
if(NOT Catch2_FOUND)
  find_package(Catch2 2.13 CONFIG QUIET)
endif()
if(Catch2_FOUND)
  list(APPEND CMAKE_MODULE_PATH "${Catch2_DIR}")
else()
  message(STATUS "Catch2 not installed; fetching v3.7.1 (needs network)")
  include(FetchContent)
  FetchContent_Declare(Catch2 GIT_REPOSITORY https://github.com/catchorg/Catch2.git GIT_TAG v3.7.1 GIT_SHALLOW ON)
  FetchContent_MakeAvailable(Catch2)
  set(Catch2_VERSION 3.7.1)
  list(APPEND CMAKE_MODULE_PATH "${catch2_SOURCE_DIR}/extras")
endif()
include(Catch)
string(REGEX MATCH "^[0-9]+" TC_CATCH2_MAJOR "${Catch2_VERSION}")
if(TC_CATCH2_MAJOR EQUAL 2)
  set(TC_GPU_SKIP_CODE 77)
else()
  set(TC_GPU_SKIP_CODE 4)
endif()
message(STATUS "Catch2 ${Catch2_VERSION}: GPU tests without a GPU exit ${TC_GPU_SKIP_CODE} and show as Skipped")

add_library(tc_catch_main STATIC "${PROJECT_SOURCE_DIR}/common/tests/catch_main.cpp")
target_link_libraries(tc_catch_main PUBLIC Catch2::Catch2)
target_compile_definitions(tc_catch_main PUBLIC TC_CATCH2_MAJOR=${TC_CATCH2_MAJOR})

add_library(tc_test_support INTERFACE)
target_include_directories(tc_test_support INTERFACE "${PROJECT_SOURCE_DIR}/common/tests/include")
target_link_libraries(tc_test_support INTERFACE tc_catch_main tc::common)

# The guard of that main: a fixture with exactly 77 and exactly 4 failed checks, run through ctest with those skip
# codes, must read Failed, and its skip Skipped (cmake/tests/check_catch_exit_codes.cmake).
add_executable(catch_exit_code_fixture "${PROJECT_SOURCE_DIR}/common/tests/catch_exit_code_fixture.cpp")
target_link_libraries(catch_exit_code_fixture PRIVATE tc_test_support)
add_test(NAME cmake:a_failing_test_never_reads_as_skipped
  COMMAND ${CMAKE_COMMAND} "-DFIXTURE=$<TARGET_FILE:catch_exit_code_fixture>" -DSKIP_CODE=${TC_GPU_SKIP_CODE}
          -DSCRATCH=${CMAKE_BINARY_DIR}/catch_exit_code_test -DCTEST=${CMAKE_CTEST_COMMAND}
          -P ${PROJECT_SOURCE_DIR}/cmake/tests/check_catch_exit_codes.cmake)
set_tests_properties(cmake:a_failing_test_never_reads_as_skipped PROPERTIES LABELS host)

# The guards of test names, on a fixture with the name that once broke discovery: the build-time name check, the
# count of registered tests and the main's failure of a run that ran no case must each catch it
# (cmake/tests/check_discovery_guards.cmake).
add_executable(catch_discovery_fixture "${PROJECT_SOURCE_DIR}/common/tests/catch_discovery_fixture.cpp")
target_link_libraries(catch_discovery_fixture PRIVATE tc_test_support)
add_test(NAME cmake:broken_test_names_are_caught
  COMMAND ${CMAKE_COMMAND} "-DFIXTURE=$<TARGET_FILE:catch_discovery_fixture>" -DCATCH2_MAJOR=${TC_CATCH2_MAJOR}
          -DSCRATCH=${CMAKE_BINARY_DIR}/catch_discovery_test -DCTEST=${CMAKE_CTEST_COMMAND}
          -DCMAKE_DIR=${PROJECT_SOURCE_DIR}/cmake -P ${PROJECT_SOURCE_DIR}/cmake/tests/check_discovery_guards.cmake)
set_tests_properties(cmake:broken_test_names_are_caught PROPERTIES LABELS host)

# tc_check_test_names(<target>): a build step after <target> links that fails the build on a test case name
# catch_discover_tests cannot register as one ctest test (cmake/check_test_names.cmake lists the rules), and the test
# <target>:every_case_is_one_ctest_test, which fails unless the cases <target> lists and the ctest tests that run it
# are equal in number (cmake/expect_every_case_registered.cmake). Call it before catch_discover_tests, whose own
# build step then runs after the check.
function(tc_check_test_names target)
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND} "-DEXE=$<TARGET_FILE:${target}>" -DCATCH2_MAJOR=${TC_CATCH2_MAJOR}
            -P ${PROJECT_SOURCE_DIR}/cmake/check_test_names.cmake
    VERBATIM)
  add_test(NAME ${target}:every_case_is_one_ctest_test
    COMMAND ${CMAKE_COMMAND} -DCTEST=${CMAKE_CTEST_COMMAND} -DDIR=${CMAKE_BINARY_DIR} "-DEXE=$<TARGET_FILE:${target}>"
            -DPREFIX=${target}: -DCATCH2_MAJOR=${TC_CATCH2_MAJOR}
            -P ${PROJECT_SOURCE_DIR}/cmake/expect_every_case_registered.cmake)
  set_tests_properties(${target}:every_case_is_one_ctest_test PROPERTIES LABELS host)
endfunction()

# tc_add_catch_tests(<target> [HOST_ONLY | SERIAL_GPU] <sources>...): a Catch2 test executable with [gpu] and host
# tests labelled as above. HOST_ONLY: it has no [gpu] tests, so only the host pass is registered (a [gpu] discovery of
# nothing makes CatchAddTests warn "contains no tests"); a test, <target>:declares_no_gpu_tests, fails if a [gpu] test
# appears in it anyway, since the host pass ("~[gpu]") would never run it. SERIAL_GPU: it has [gpu][serial] cases,
# registered apart to run alone (above). Its names are checked as tc_check_test_names says.
function(tc_add_catch_tests target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "HOST_ONLY;SERIAL_GPU" "" "")
  add_executable(${target} ${arg_UNPARSED_ARGUMENTS})
  target_link_libraries(${target} PRIVATE tc_test_support)
  # The kernels' mutation points (tc/mutation_point.cuh) reach the tests' planted bugs in test binaries only.
  target_compile_definitions(${target} PRIVATE TC_MUTATION_HOOK=1)
  tc_check_test_names(${target})
  if(arg_HOST_ONLY)
    tc_require_no_tests(${target} "[gpu]" "host")
  elseif(arg_SERIAL_GPU)
    catch_discover_tests(${target}
      TEST_SPEC "[gpu]~[serial]"
      TEST_PREFIX "${target}:"
      PROPERTIES LABELS gpu SKIP_RETURN_CODE ${TC_GPU_SKIP_CODE})
    catch_discover_tests(${target}
      TEST_SPEC "[gpu][serial]"
      TEST_PREFIX "${target}:"
      PROPERTIES LABELS gpu SKIP_RETURN_CODE ${TC_GPU_SKIP_CODE} RUN_SERIAL TRUE)
  else()
    catch_discover_tests(${target}
      TEST_SPEC "[gpu]"
      TEST_PREFIX "${target}:"
      PROPERTIES LABELS gpu SKIP_RETURN_CODE ${TC_GPU_SKIP_CODE})
  endif()
  catch_discover_tests(${target}
    TEST_SPEC "~[gpu]"
    TEST_PREFIX "${target}:"
    PROPERTIES LABELS host)
endfunction()

# tc_require_no_tests(<target> <spec> <labels>): the test <target>:declares_no_<gpu|host>_tests, which lists
# <target>'s test cases matching the Catch2 spec ("[gpu]" or "~[gpu]") and fails if there is any
# (cmake/expect_no_tests.cmake).
function(tc_require_no_tests target spec labels)
  set(kind gpu)
  if(spec STREQUAL "~[gpu]")
    set(kind host)
  endif()
  add_test(NAME ${target}:declares_no_${kind}_tests
    COMMAND ${CMAKE_COMMAND} "-DEXE=$<TARGET_FILE:${target}>" "-DSPEC=${spec}" -DCATCH2_MAJOR=${TC_CATCH2_MAJOR}
            -P ${PROJECT_SOURCE_DIR}/cmake/expect_no_tests.cmake)
  set_tests_properties(${target}:declares_no_${kind}_tests PROPERTIES LABELS "${labels}")
endfunction()

# The sanitizer runner's own test (host, runs anywhere): on a stand-in compute-sanitizer, every way a run can end must
# be passed, failed or Skipped as cmake/run_sanitizer.cmake documents; a crash with no summary must fail.
add_test(NAME cmake:run_sanitizer_decides_every_outcome
  COMMAND ${CMAKE_COMMAND} -DRUNNER=${PROJECT_SOURCE_DIR}/cmake/run_sanitizer.cmake
          -DFAKE=${PROJECT_SOURCE_DIR}/cmake/tests/fake_compute_sanitizer.sh
          -P ${PROJECT_SOURCE_DIR}/cmake/tests/check_run_sanitizer.cmake)
set_tests_properties(cmake:run_sanitizer_decides_every_outcome PROPERTIES LABELS host)

# The benchmark ladder's resume (TC_LADDER_RESUME; cmake/ladder.cmake), on stand-in chapters and a stand-in nvidia-smi:
# a stopped ladder goes on without repeating finished chapters or keeping an interrupted one's rows, and only on the
# GPU that began it.
add_test(NAME cmake:ladder_resumes_without_repeating_or_keeping_partial_rows
  COMMAND ${CMAKE_COMMAND} -DLADDER=${PROJECT_SOURCE_DIR}/cmake/ladder.cmake
          -DFAKE=${PROJECT_SOURCE_DIR}/cmake/tests/fake_ladder_chapter.sh -DSCRATCH=${CMAKE_BINARY_DIR}/ladder_resume_test
          -P ${PROJECT_SOURCE_DIR}/cmake/tests/check_ladder_resume.cmake)
set_tests_properties(cmake:ladder_resumes_without_repeating_or_keeping_partial_rows PROPERTIES LABELS host)

# No two tests of the build tree may share a name, and the check itself must see a duplicate (the fixture
# cmake/tests/duplicate_test_names registers one name twice; copied into the build tree, where ctest may write).
configure_file("${PROJECT_SOURCE_DIR}/cmake/tests/duplicate_test_names/CTestTestfile.cmake"
               "${CMAKE_BINARY_DIR}/duplicate_test_names/CTestTestfile.cmake" COPYONLY)
add_test(NAME cmake:no_two_tests_share_a_name
  COMMAND ${CMAKE_COMMAND} -DCTEST=${CMAKE_CTEST_COMMAND} -DDIR=${CMAKE_BINARY_DIR}
          -P ${PROJECT_SOURCE_DIR}/cmake/tests/check_unique_test_names.cmake)
add_test(NAME cmake:the_unique_name_check_sees_a_duplicate
  COMMAND ${CMAKE_COMMAND} -DCTEST=${CMAKE_CTEST_COMMAND} -DDIR=${CMAKE_BINARY_DIR}/duplicate_test_names
          -P ${PROJECT_SOURCE_DIR}/cmake/tests/check_unique_test_names.cmake)
set_tests_properties(cmake:no_two_tests_share_a_name cmake:the_unique_name_check_sees_a_duplicate PROPERTIES
  LABELS host)
set_tests_properties(cmake:the_unique_name_check_sees_a_duplicate PROPERTIES
  PASS_REGULAR_EXPRESSION "registered more than once:[ \n]*twice_registered")

# test_summary: one line after a test run (the last step of the test workflows in CMakePresets.json): how many tests
# passed, failed and were Skipped, and why (cmake/test_summary.cmake, from the JUnit file the test presets write).
add_custom_target(test_summary
  COMMAND ${CMAKE_COMMAND} -DJUNIT=${CMAKE_BINARY_DIR}/test-results.xml -P ${PROJECT_SOURCE_DIR}/cmake/test_summary.cmake
  USES_TERMINAL
  COMMENT "Summary of the last test run")

# The summary script's own test, on a fixed JUnit file: Skipped tests are counted apart from passed ones, by reason.
add_test(NAME cmake:test_summary_counts_skipped_tests_by_reason
  COMMAND ${CMAKE_COMMAND} -DJUNIT=${PROJECT_SOURCE_DIR}/cmake/tests/test_results_sample.xml
          -P ${PROJECT_SOURCE_DIR}/cmake/test_summary.cmake)
set_tests_properties(cmake:test_summary_counts_skipped_tests_by_reason PROPERTIES LABELS host
  PASS_REGULAR_EXPRESSION "summary of 5 tests: 1 passed, 1 failed, 3 Skipped \\(not run here, so not passed: 2 no NVIDIA GPU found \\| 1 compute-sanitizer not found \\(PATH, /usr/local/cuda/bin\\)\\)")
# Brackets and ";" in names and outputs, as in test_results_brackets.xml, must not merge test cases (CMake's lists stop
# splitting inside an unbalanced "["), and a count that differs from ctest's own (test_results_miscounted.xml, the same
# cases under a <testsuite> that says 5) must fail the summary.
add_test(NAME cmake:test_summary_counts_names_with_brackets
  COMMAND ${CMAKE_COMMAND} -DJUNIT=${PROJECT_SOURCE_DIR}/cmake/tests/test_results_brackets.xml
          -P ${PROJECT_SOURCE_DIR}/cmake/test_summary.cmake)
add_test(NAME cmake:test_summary_fails_a_count_unlike_ctests
  COMMAND ${CMAKE_COMMAND} -DJUNIT=${PROJECT_SOURCE_DIR}/cmake/tests/test_results_miscounted.xml
          -P ${PROJECT_SOURCE_DIR}/cmake/test_summary.cmake)
set_tests_properties(cmake:test_summary_counts_names_with_brackets cmake:test_summary_fails_a_count_unlike_ctests
  PROPERTIES LABELS host)
set_tests_properties(cmake:test_summary_counts_names_with_brackets PROPERTIES PASS_REGULAR_EXPRESSION
  "summary of 4 tests: 3 passed, 0 failed, 1 Skipped \\(not run here, so not passed: 1 no NVIDIA GPU found \\[\\)")
set_tests_properties(cmake:test_summary_fails_a_count_unlike_ctests PROPERTIES
  PASS_REGULAR_EXPRESSION "counted 4 test cases,[ \n]+but[ \n]+ctest[ \n]+ran[ \n]+5")
