# Build-time check (a POST_BUILD step of every Catch2 test executable, tc_check_test_names in cmake/TcTesting.cmake):
# fails the build on a test case name that catch_discover_tests cannot register as one ctest test running that case.
# What breaks discovery, and why:
#   ';'               ctest and CMake split lists at ';': one name becomes two tests, each running something else;
#   '[' or ']'        CMake does not split a list inside square brackets, so an unbalanced one merges every later
#                     name into one test whose filter matches no case (104 host tests once ran as one test that ran
#                     nothing); in a Catch2 test spec '[' also starts a tag;
#   '\' or '"'        escape and quote characters of Catch2's test specs;
#   a leading '-', '~' or "exclude:"   an exclusion in a Catch2 test spec: the test would run every other case;
#   a leading '#'     a file tag in Catch2's specs, and listed in quotes by Catch2 2;
#   a leading or trailing '*'          a wildcard: the test would run every case the pattern matches;
#   leading or trailing spaces         trimmed from a spec, so the filter names another string.
# Usage: cmake -DEXE=<test executable> -DCATCH2_MAJOR=<2|3> -P check_test_names.cmake
# Errors: FATAL_ERROR naming each bad name and its rule; FATAL_ERROR if the executable cannot list its cases.
# Source: Catch2 documentation, "Command line" (test specs) and "Test cases and sections" (names); CMake
# documentation, "cmake-language(7)", "Lists".
include("${CMAKE_CURRENT_LIST_DIR}/catch_cases.cmake")
tc_list_catch_cases("${EXE}" "" out rc)
if(rc LESS 0)
  message(FATAL_ERROR "${EXE} could not list its test cases (exit ${rc})")
endif()
# The characters CMake's lists read, set aside before the output is split into lines.
string(REPLACE "[" "<<LB>>" out "${out}")
string(REPLACE "]" "<<RB>>" out "${out}")
string(REPLACE ";" "<<SC>>" out "${out}")
string(REPLACE "\n" ";" lines "${out}")
set(bad "")
set(count 0)
foreach(name IN LISTS lines)
  if(name STREQUAL "")
    continue()
  endif()
  math(EXPR count "${count} + 1")
  set(why "")
  if(name MATCHES "<<SC>>")
    set(why "';' (ctest splits the name in two)")
  elseif(name MATCHES "<<LB>>|<<RB>>")
    set(why "'[' or ']' (CMake stops splitting the list of cases inside brackets; Catch2 reads a tag)")
  elseif(name MATCHES "[\\\"]")
    set(why "'\\' or '\"' (Catch2's test specs escape and quote with them)")
  elseif(name MATCHES "^(-|~|exclude:)")
    set(why "a leading '-', '~' or 'exclude:' (a test spec reads it as an exclusion)")
  elseif(name MATCHES "^#" AND CATCH2_MAJOR EQUAL 2)
    set(why "a leading '#' (Catch2 2 lists it quoted, and its specs read a file tag)")
  elseif(name MATCHES "^\\*|\\*$")
    set(why "a leading or trailing '*' (a test spec reads a wildcard)")
  elseif(name MATCHES "^ | $")
    set(why "a leading or trailing space (a test spec trims it)")
  endif()
  if(why)
    string(REPLACE "<<LB>>" "[" name "${name}")
    string(REPLACE "<<RB>>" "]" name "${name}")
    string(REPLACE "<<SC>>" "\;" name "${name}")
    string(APPEND bad "\n  \"${name}\": ${why}")
  endif()
endforeach()
if(bad)
  message(FATAL_ERROR "${EXE}: test case names that ctest cannot run as written (rename them):${bad}")
endif()
message(STATUS "${count} test case names of ${EXE} register as one ctest test each")
