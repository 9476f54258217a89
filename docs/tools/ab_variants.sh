#!/usr/bin/env bash
# ab_variants.sh: one chapter program from several commits, timed in turn on one GPU, so that variants of a kernel are
# compared in one lease, each problem run by every variant before the next problem (drift in clocks and temperature
# then falls on all of them alike). Two halves, for a GPU machine that has no git history (its copy of the tree has
# none) and no network:
#   docs/tools/ab_variants.sh stage <name>=<commit>...
#       here: each commit's tree, git archive'd into .deps/variants/<name> (ignored by git; carry .deps with it)
#   docs/tools/ab_variants.sh run <target> <log> <rounds> <seconds> <problem>...
#       there: builds <target> of every staged variant with the h200 preset (all at once, 4 jobs each; Catch2 and the
#       cuDNN frontend from .deps, as the chapters' builds take them), then for each round and problem runs
#       build/h200/<dir of target>/<target> <problem> with every variant in name order, appending the output to
#       <log>; stops starting problems once <seconds> have passed since the builds began, so that a lease's limit
#       does not cut a run in half. <problem>: the program's flags as one word, e.g. "--batch 8 --seqlen 2048".
# The log holds, per run, a line "== r<round> <name> <problem>", the program's output, and "(took <ms> ms)"; a run
# that fails says "(exit <code>)", 124 where it ran past 120 s and was stopped (timeout).
# Errors: bad usage exits 2; a variant that does not build stops the run (exit 1) after naming its build log.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir="${root}/.deps/variants"
usage() {
  echo "usage: ab_variants.sh stage <name>=<commit>... | run <target> <log> <rounds> <seconds> <problem>..." >&2
  exit 2
}
[ $# -ge 2 ] || usage
mode=$1
shift
case "${mode}" in
  stage)
    rm -rf "${dir}" && mkdir -p "${dir}"
    for pair in "$@"; do
      name=${pair%%=*} commit=${pair#*=}
      if [ -z "${name}" ] || [ "${name}" = "${pair}" ]; then usage; fi
      mkdir -p "${dir}/${name}"
      git -C "${root}" archive "${commit}" | tar -x -C "${dir}/${name}"
      echo "staged ${name}: $(git -C "${root}" rev-parse --short "${commit}")"
    done
    ;;
  run)
    [ $# -ge 5 ] || usage
    target=$1 log=$2 rounds=$3 seconds=$4
    shift 4
    [ -d "${dir}" ] || { echo "error: nothing staged in ${dir}: run 'ab_variants.sh stage' first" >&2; exit 2; }
    # The staged trees, not their build logs beside them.
    names=$(find "${dir}" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort)
    start=$(date +%s)
    pids=()
    for v in ${names}; do
      # One configure and build a variant, in the background: a chapter's build is mostly one translation unit, so
      # four jobs each keep 16 cores busy with four variants.
      ( cd "${dir}/${v}" &&
        cmake --preset h200 -DCMAKE_PREFIX_PATH="${root}/.deps/catch2" -DTC_BUILD_TESTS=OFF \
          -DTC_CUDNN_FRONTEND_INCLUDE="${root}/.deps/cudnn_frontend/include" > "${dir}/${v}.build.log" 2>&1 &&
        cmake --build build/h200 -j4 --target "${target}" >> "${dir}/${v}.build.log" 2>&1 ) &
      pids+=($!)
    done
    # Each build's own pid: a bare `wait` would also wait for any process substitution of the caller's.
    failed=0
    for p in "${pids[@]}"; do wait "${p}" || failed=1; done
    [ "${failed}" = 0 ] || { echo "error: a variant did not build: see ${dir}/*.build.log" >&2; exit 1; }
    echo "built ${names//$'\n'/ } in $(( $(date +%s) - start )) s" >> "${log}"
    for ((round = 1; round <= rounds; ++round)); do
      for problem in "$@"; do
        if [ $(( $(date +%s) - start )) -ge "${seconds}" ]; then
          echo "stopped: ${seconds} s passed" >> "${log}"
          exit 0
        fi
        for v in ${names}; do
          program=$(find "${dir}/${v}/build/h200" -type f -name "${target}" -perm -u+x | head -1)
          echo "== r${round} ${v} ${problem}" >> "${log}"
          t0=$(date +%s%N)
          # shellcheck disable=SC2086  # the problem's flags are words
          # A variant that hangs (a barrier protocol gone wrong) is cut after 120 s, not the lease's whole time.
          timeout 120 "${program}" ${problem} >> "${log}" 2>&1 || echo "(exit $?)" >> "${log}"
          echo "(took $(( ($(date +%s%N) - t0) / 1000000 )) ms)" >> "${log}"
        done
      done
    done
    ;;
  *) usage ;;
esac
