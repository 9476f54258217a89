# ctest helper: runs COMMAND (a |-separated list) and passes only if it exits with EXPECT_CODE and its output matches
# EXPECT_REGEX. Exit 77 ("skipped: no suitable GPU") prints "tc-test-skipped: <its output>", which the test's
# SKIP_REGULAR_EXPRESSION turns into Skipped, but only when the output also matches SKIP_REGEX (default: a line
# starting "skipped: ", the chapters' own reason), so that a 77 nobody explained fails; any other outcome fails, so a
# wrong result can never look skipped.
# Usage: cmake -DCOMMAND=<exe>|<arg>... -DEXPECT_CODE=<n> -DEXPECT_REGEX=<regex> [-DSKIP_REGEX=<regex>]
#              -P expect_exit_code.cmake
string(REPLACE "|" ";" command "${COMMAND}")
if(NOT DEFINED SKIP_REGEX)
  set(SKIP_REGEX "(^|\n)skipped: ")
endif()
execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(rc EQUAL 77 AND "${out}${err}" MATCHES "${SKIP_REGEX}")
  message("tc-test-skipped: ${out}")
elseif(rc EQUAL 77)
  message(FATAL_ERROR "exit 77 (skipped) without the reason this test accepts for a skip: ${SKIP_REGEX}")
elseif(NOT rc EQUAL EXPECT_CODE)
  message(FATAL_ERROR "expected exit ${EXPECT_CODE}, got ${rc}")
elseif(NOT "${out}${err}" MATCHES "${EXPECT_REGEX}")
  message(FATAL_ERROR "exit ${rc} as expected, but the output does not match: ${EXPECT_REGEX}")
else()
  message("exit ${rc} and the expected message, as required")
endif()
