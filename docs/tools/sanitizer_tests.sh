#!/usr/bin/env bash
# sanitizer_tests.sh <test executable> <Catch2 test spec> <output file>: runs the chosen test cases of one chapter's
# test executable under each of compute-sanitizer's racecheck, synccheck, memcheck and initcheck (--error-exitcode 1)
# and writes, per tool, the command, the exit code with Catch2's verdict line, and the tool's summary. Used to make
# docs/results/06_sanitizer_h200.txt (chapter 06's probe, small GEMM checks and ablation kernels). Needs a GPU and
# compute-sanitizer; exits 1 if any run failed.
set -uo pipefail
exe=${1:?usage: sanitizer_tests.sh <test executable> <test spec> <output file>}
spec=${2:?usage: sanitizer_tests.sh <test executable> <test spec> <output file>}
out=${3:?usage: sanitizer_tests.sh <test executable> <test spec> <output file>}
status=0
{
  echo "# command: docs/tools/sanitizer_tests.sh $exe '$spec' $out"
  echo "# device:  $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -n 1)"
  echo "# tool:    $(compute-sanitizer --version 2>&1 | grep -m1 Version || echo 'compute-sanitizer not on PATH')"
  for tool in racecheck synccheck memcheck initcheck; do
    options=(--tool "$tool" --error-exitcode 1)
    [ "$tool" = racecheck ] && options+=(--racecheck-report all)
    log=$(compute-sanitizer "${options[@]}" "$exe" "$spec" 2>&1)
    rc=$?
    [ $rc -eq 0 ] || status=1
    echo
    echo "== $tool: compute-sanitizer ${options[*]} $(basename "$exe") '$spec' =="
    echo "exit code $rc; $(grep -E '^(All tests passed|test cases:)' <<<"$log" | tail -n 1)"
    grep -E '^========= (ERROR|RACECHECK) SUMMARY' <<<"$log"
  done
} > "$out"
cat "$out"
exit $status
