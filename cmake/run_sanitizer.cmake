# ctest helper for the tests labelled "sanitizer": runs one chapter binary under one compute-sanitizer tool.
# Usage: cmake -DTOOL=memcheck|racecheck|synccheck|initcheck -DCOMMAND=<exe>|<arg>... [-DHINTS=<dir>|...]
#              -P run_sanitizer.cmake
# compute-sanitizer is looked for now, at run time (PATH, then HINTS: the toolkit's bin directory seen at configure
# time, then /usr/local/cuda/bin), so a build made where it is missing still runs these tests on a GPU host.
# Outcomes:
#   passed   the tool ran the binary to the end, reported 0 errors (0 hazards for racecheck), and the binary exited 0;
#   failed   any error or hazard (--error-exitcode 1), or the binary's own non-zero exit (a mismatch, a CUDA error);
#   skipped  "tc-test-skipped: <why>", which the tests' SKIP_REGULAR_EXPRESSION reports as Skipped: no
#            compute-sanitizer; no suitable GPU (the binary exited 77); or the tool refused the device (it printed
#            no summary, as on gVisor-sandboxed GPU hosts).
string(REPLACE "|" ";" command "${COMMAND}")
string(REPLACE "|" ";" hints "${HINTS}")
find_program(sanitizer compute-sanitizer HINTS ${hints} /usr/local/cuda/bin NO_CACHE)
if(NOT sanitizer)
  message("tc-test-skipped: compute-sanitizer not found on PATH or in ${hints};/usr/local/cuda/bin")
  return()
endif()
# --error-exitcode 1: any report fails the run; --check-exit-code yes is the default, so the binary's own non-zero
# exit fails it too. racecheck reports shared-memory hazards only when asked with --racecheck-report.
set(options --tool ${TOOL} --error-exitcode 1)
if(TOOL STREQUAL "racecheck")
  list(APPEND options --racecheck-report all)
endif()
execute_process(COMMAND "${sanitizer}" ${options} ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
list(JOIN options " " shown_options)
list(JOIN command " " shown_command)
message("${sanitizer} ${shown_options} ${shown_command}\n${all}")
if(NOT all MATCHES "========= (ERROR|RACECHECK) SUMMARY: ")
  message("tc-test-skipped: compute-sanitizer printed no summary, so it did not run the binary on this device")
elseif(rc EQUAL 77)
  message("tc-test-skipped: the binary found no suitable GPU")
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "compute-sanitizer --tool ${TOOL}: exit ${rc} (1: a report above, or the binary's mismatch)")
elseif(NOT all MATCHES "SUMMARY: 0 (errors|hazards)")
  message(FATAL_ERROR "compute-sanitizer --tool ${TOOL} exited 0 without a zero-error summary")
endif()
