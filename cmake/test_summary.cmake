# Prints one line after a ctest run: how many tests passed, failed and were Skipped, and why the Skipped ones did not
# run, grouped by reason. ctest's own "100% tests passed" counts Skipped tests as not failed; a GPU test Skipped on a
# machine without a GPU tested nothing, and this line says so. Read from the JUnit file ctest writes
# (CMakePresets.json: "outputJUnitFile"), where each skipped test's output holds its reason: the test's own
# "skipped: ..." line, or the "tc-test-skipped: ..." line of the cmake/ helpers.
# Usage: cmake -DJUNIT=<file> -P test_summary.cmake
if(NOT EXISTS "${JUNIT}")
  message(FATAL_ERROR "test summary: ${JUNIT} does not exist; run the tests first")
endif()
file(READ "${JUNIT}" xml)
# One list element per test case: ";" is CMake's list separator, so it stands aside as <<SEMICOLON>> until the line
# is printed.
string(REPLACE "&gt;" ">" xml "${xml}")  # the XML escapes the reasons may hold, before ";" is set aside
string(REPLACE "&lt;" "<" xml "${xml}")
string(REPLACE "&quot;" "\"" xml "${xml}")
string(REPLACE "&amp;" "&" xml "${xml}")
string(REPLACE ";" "<<SEMICOLON>>" xml "${xml}")
string(REPLACE "<testcase " ";<testcase " cases "${xml}")
list(REMOVE_AT cases 0)  # the file's head, before the first test case
set(passed 0)
set(failed 0)
set(skipped 0)
set(reasons "")
foreach(case IN LISTS cases)
  string(REGEX MATCH "status=\"([a-z]+)\"" _ "${case}")
  set(status "${CMAKE_MATCH_1}")
  if(status STREQUAL "run")
    math(EXPR passed "${passed} + 1")
  elseif(status STREQUAL "notrun" OR status STREQUAL "disabled")
    math(EXPR skipped "${skipped} + 1")
    set(reason "")
    if(case MATCHES "tc-test-skipped: ([^\n]*)")
      set(reason "${CMAKE_MATCH_1}")
    elseif(case MATCHES "(^|\n|<system-out>)skipped: ([^\n]*)")
      set(reason "${CMAKE_MATCH_2}")
    elseif(case MATCHES "<skipped message=\"([^\"]*)\"")
      set(reason "${CMAKE_MATCH_1}")
    endif()
    string(REGEX REPLACE "^skipped: " "" reason "${reason}")
    # The minimum SM differs from test to test; what the machine lacks is the reason worth counting.
    string(REGEX REPLACE "^.*needs (a GPU of SM >= [0-9.]+|SM [0-9.]+ exactly \\(sm_[0-9]+a\\))<<SEMICOLON>> " "" reason
           "${reason}")
    string(STRIP "${reason}" reason)
    if(reason STREQUAL "")
      set(reason "no reason printed")
    endif()
    string(MD5 key "${reason}")  # a variable-name-safe key per distinct reason
    if(NOT DEFINED count_${key})
      set(count_${key} 0)
      list(APPEND reasons "${key}")
      set(text_${key} "${reason}")
    endif()
    math(EXPR count_${key} "${count_${key}} + 1")
  else()
    math(EXPR failed "${failed} + 1")
  endif()
endforeach()
math(EXPR total "${passed} + ${failed} + ${skipped}")
set(line "summary of ${total} tests: ${passed} passed, ${failed} failed, ${skipped} Skipped")
if(skipped GREATER 0)
  set(why "")
  foreach(key IN LISTS reasons)
    list(APPEND why "${count_${key}} ${text_${key}}")
  endforeach()
  string(REPLACE ";" " | " why "${why}")
  string(APPEND line " (not run here, so not passed: ${why})")
endif()
string(REPLACE "<<SEMICOLON>>" ";" line "${line}")
message("${line}")
