# ctest helper for the tests labelled "sanitizer": runs one chapter binary under one compute-sanitizer tool.
# Usage: cmake -DTOOL=memcheck|racecheck|synccheck|initcheck -DCOMMAND=<exe>|<arg>... [-DHINTS=<dir>|...]
#              [-DSANITIZER=<path>] -P run_sanitizer.cmake
# compute-sanitizer is looked for now, at run time (PATH, then HINTS: the toolkit's bin directory seen at configure
# time, then /usr/local/cuda/bin), so a build made where it is missing still runs these tests on a GPU host.
# SANITIZER names the program instead (cmake/tests/check_run_sanitizer.cmake feeds it a stand-in).
# Outcomes, decided in this order:
#   skipped  compute-sanitizer is not found; or it refused the device, by its own message ("Device not supported", as
#            on gVisor-sandboxed GPU hosts); or the binary itself said "skipped: ..." and exited 77 (no suitable
#            GPU). The reason is printed after "tc-test-skipped:", which the tests' SKIP_REGULAR_EXPRESSION reports
#            as Skipped;
#   failed   no sanitizer summary (the run crashed, or never ran the binary); any error or hazard (--error-exitcode
#            1); the binary's own non-zero exit (a mismatch, a CUDA error); or exit 0 without a zero-error summary;
#   passed   the tool ran the binary to the end, reported 0 errors (0 hazards for racecheck), and both exited 0.
string(REPLACE "|" ";" command "${COMMAND}")
string(REPLACE "|" ";" hints "${HINTS}")
if(DEFINED SANITIZER)
  set(sanitizer "${SANITIZER}")
else()
  list(APPEND hints /usr/local/cuda/bin)
  list(REMOVE_DUPLICATES hints)
  find_program(sanitizer compute-sanitizer HINTS ${hints} NO_CACHE)
endif()
if(NOT sanitizer)
  list(JOIN hints ", " searched)
  message("tc-test-skipped: compute-sanitizer not found (PATH, ${searched})")
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
string(REGEX MATCH "========= [^\n]*[Dd]evice (is )?not supported[^\n]*" refusal "${all}")
if(refusal)
  message("tc-test-skipped: compute-sanitizer refused this device: ${refusal}")
elseif(rc EQUAL 77 AND all MATCHES "(^|\n)skipped: ")
  message("tc-test-skipped: the binary found no suitable GPU")
elseif(NOT all MATCHES "========= (ERROR|RACECHECK) SUMMARY: ")
  message(FATAL_ERROR "compute-sanitizer --tool ${TOOL}: exit ${rc} and no summary: the run crashed or never ran the "
                      "binary")
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "compute-sanitizer --tool ${TOOL}: exit ${rc} (1: a report above, or the binary's mismatch)")
elseif(NOT all MATCHES "SUMMARY: 0 (errors|hazards)")
  message(FATAL_ERROR "compute-sanitizer --tool ${TOOL} exited 0 without a zero-error summary")
endif()
