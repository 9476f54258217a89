#!/usr/bin/env bash
# exercises_summary.sh <out> [<test name regex>]: workshop mode on this machine (README, "Workshop mode"). Builds and
# runs the exercise tests against the chapters' own code (preset workshop-solutions: all must pass) and against the
# stubs as shipped (presets workshop and workshop-gpu, the host- and the GPU-graded ones: all must fail), and writes
# each ctest verdict with the machine it ran on. The
# regex (ctest -R) keeps one group of chapters in one file, so that work on another chapter leaves the file current:
# docs/results/exercises_h200.txt, which the README quotes, holds chapters 01-08 ('^0[1-8]_exercises:'). Exit status:
# 0 when both verdicts are as they must be.
set -uo pipefail
out=${1:?usage: exercises_summary.sh <out> [<test name regex>]}
only=${2:-}
filter=()
[ -n "$only" ] && filter=(-R "$only")
status=0
{
  echo "# command: docs/tools/exercises_summary.sh $out${only:+ '$only'}"
  echo "# device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo 'no GPU')"
  for preset in workshop-solutions workshop workshop-gpu; do
    echo
    configure=$preset
    what="cmake --workflow --preset $preset"
    if [ "$preset" = workshop-gpu ]; then  # the stubs' build; its own test preset runs the GPU-graded ones
      configure=workshop
      what="ctest --preset workshop-gpu"
    fi
    echo "== $what =="
    if ! { cmake --preset "$configure" && cmake --build --preset "$configure"; } >/tmp/exercises_build.log 2>&1; then
      echo "build failed:"; tail -20 /tmp/exercises_build.log; status=1; continue
    fi
    # -LE guard: the exercise targets' "no [gpu] tests" checks are not exercises (cmake/TcChapters.cmake).
    ctest --preset "$preset" -LE guard "${filter[@]}" >/tmp/exercises_ctest.log 2>&1
    # The verdict and the lists of failed and skipped tests; not the per-test progress or the timings.
    sed -n '/tests passed/p; /^The following tests did not run:/,/^$/p; /^The following tests FAILED:/,/^$/p' /tmp/exercises_ctest.log | grep -v '^$'
    total=$(ctest --preset "$preset" -LE guard "${filter[@]}" -N | sed -n 's/^Total Tests: //p')
    # ctest lists each as "<tab>NN - <name> (Failed)", newer versions with the labels after it.
    failed=$(grep -cE '^[[:space:]]+[0-9]+ - .*\(Failed\)' /tmp/exercises_ctest.log || true)
    skipped=$(grep -cE '^[[:space:]]+[0-9]+ - .*\(Skipped\)' /tmp/exercises_ctest.log || true)
    if [ "$preset" = workshop-solutions ] && [ "$failed" -ne 0 ]; then status=1; fi
    if [ "$preset" != workshop-solutions ] && [ "$failed" -ne "$((total - skipped))" ]; then status=1; fi
  done
} >"$out"
exit $status
