#!/usr/bin/env bash
# Which kernels cuBLAS runs for chapter 10's yardsticks at given shapes. For each shape it runs the chapter's binary
# under Nsight Compute, profiling cuBLAS's kernels alone, and prints each distinct kernel, fastest first: those of
# cublasGemmEx's default algorithm and of cuBLASLt's first 8 heuristic algorithms (1 warm-up and 20 timed launches
# each, so a kernel two algorithms share shows 42; a split-K algorithm adds cuBLASLt's splitKreduce kernel; the
# checks' fp64 reference GEMMs are left out). Each line gives the grid (blocks), the cluster's size along x, the
# launches, and the mean duration under the profiler, whose clocks are not the timed runs' (compare kernels within a
# shape, not with the chapter's tables).
# cuBLAS's nvjet kernel names carry the tile: nvjet_sm90_tst_<M>x<N>_<K>x<stages>_<cluster>_..., M and N in cuBLAS's
# column-major view, where the weights are M and the tokens N (suite.hpp).
# Usage: docs/tools/ncu_cublas_kernels.sh <10_llm_gemm_shapes binary> MxNxK... (needs ncu on the PATH and a GPU).
# With --summarize it reads one shape's saved ncu output on stdin instead, and prints its lines.
# Exit codes: ncu's, or 2 on bad usage.
set -euo pipefail
if [ "${1:-}" = "--summarize" ]; then summarize_only=1; else summarize_only=0; fi
[ ${summarize_only} = 1 ] || [ $# -ge 2 ] || { echo "usage: ncu_cublas_kernels.sh <10_llm_gemm_shapes binary> MxNxK..." >&2; exit 2; }
bin=${1:-}
shift || true
profile() {
  ncu --kernel-name-base demangled --kernel-name regex:"nvjet|xmma|cutlass|sm90_|gemv|splitK|reduce" \
    --metrics gpu__time_duration.sum,launch__grid_size,launch__cluster_dim_x --print-summary per-kernel \
    "${bin}" --shapes "$1" --warmup 1 --repeats 20 --rest-ms 0
}
# One shape's ncu output on stdin -> its kernels, fastest first.
summarize() {
  awk '
    /^  [^ ].*, Device 0, CC [0-9.]+, Invocations [0-9]+$/ {
      line = $0; sub(/^  /, "", line)
      at = match(line, / \([0-9]+, [0-9]+, [0-9]+\)x\(/)
      current = substr(line, 1, at - 1)
      if (current ~ /f64f64/) { current = ""; next }
      order[++count] = current; calls[current] = $NF; next
    }
    current != "" && $1 == "gpu__time_duration.sum" { us[current] = ($2 == "ms" ? 1000 * $NF : $NF); next }
    current != "" && $1 == "launch__grid_size" { grid[current] = $NF + 0; next }
    current != "" && $1 == "launch__cluster_dim_x" { cluster[current] = $NF + 0; next }
    END {
      for (i = 1; i <= count; ++i)  # fastest first (an insertion sort: a shape has a dozen kernels)
        for (j = i; j > 1 && us[order[j]] < us[order[j - 1]]; --j) { t = order[j]; order[j] = order[j - 1]; order[j - 1] = t }
      printf "%-72s %6s %8s %9s %10s\n", "kernel", "grid", "cluster", "launches", "mean us"
      for (i = 1; i <= count; ++i) {
        n = order[i]; shown = n; if (length(shown) > 72) shown = substr(shown, 1, 69) "..."
        printf "%-72s %6d %8d %9d %10.2f\n", shown, grid[n], cluster[n], calls[n], us[n]
      }
    }'
}
if [ ${summarize_only} = 1 ]; then
  summarize
  exit 0
fi
for shape in "$@"; do
  echo "== ${shape} =="
  profile "${shape}" 2>&1 | summarize
  echo
done
