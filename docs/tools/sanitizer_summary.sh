#!/usr/bin/env bash
# Runs the ctest tests labelled "sanitizer" (each chapter binary at a small size under compute-sanitizer memcheck,
# racecheck, synccheck and initcheck; cmake/run_sanitizer.cmake) and writes docs/results/sanitizer_<gpu>.txt:
# the provenance, ctest's own summary, then each run's sanitizer summary line and the chapter's verdict line, taken
# from ctest's log. Usage: docs/tools/sanitizer_summary.sh <build dir> <output file> [<test name regex>]. The regex
# (ctest -R) keeps one group of chapters in one file, so that work on another chapter leaves the file current: the
# README's file holds chapters 01-08 ('0[1-8]_'). Needs a GPU and compute-sanitizer; exits with ctest's code.
set -uo pipefail
usage="usage: sanitizer_summary.sh <build dir> <output file> [<test name regex>]"
build=${1:?$usage}
out=${2:?$usage}
only=${3:-}
command="ctest --test-dir ${build} -L sanitizer${only:+ -R '${only}'} -j 6"
ctest_out=$(eval "${command}" 2>&1)
rc=$?
{
  echo "# command: docs/tools/sanitizer_summary.sh ${build} ${out}${only:+ '${only}'} (runs: ${command})"
  echo "# device:  $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -n 1)"
  echo "# tool:    $(compute-sanitizer --version 2>&1 | grep -m1 Version || echo 'compute-sanitizer not on PATH')"
  echo "# date:    $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "== ctest: exit ${rc} =="
  printf '%s\n' "${ctest_out}" | grep -E 'tests passed|tests failed|Skipped|sanitizer +=|gpu +='
  echo
  echo "== each run: test, the sanitizer's summary, the chapter's verdict =="
  # In the log a test's output follows its "Testing: <name>" line, the chapter's RESULT line before the summary that
  # compute-sanitizer prints as the binary exits.
  awk '/^[0-9]+\/[0-9]+ Testing: /{name=$3; result="(no RESULT line)"}
       /^RESULT: /{result=$0}
       /^=+ (ERROR|RACECHECK) SUMMARY/{sub(/^=+ /, ""); printf "%-42s %s | %s\n", name, $0, result}' \
      "${build}/Testing/Temporary/LastTest.log" | sort
} > "${out}"
cat "${out}"
exit ${rc}
