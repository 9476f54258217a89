#!/usr/bin/env bash
# ch05_vs_ch02.sh <build-dir> <results-dir> <size>...: chapter 05's mma.sync GEMM next to chapter 02's block-tiled
# WMMA GEMM, fp16 in and fp32 accumulate, on the same GPU in one run. The chapters never include each other, so this
# runs their binaries back to back: chapter 05 once with every size (its whole output goes to
# <results-dir>/05_ptx_mma_m16n8k16_h200.txt), chapter 02 once per size with --type f16 --kernel block-tiled. Each
# binary times cuBLAS in its own process with its own layout (chapter 02: NN; chapter 05: TN), and the table below
# takes every number from their printed results. Prints the merged table on stdout.
set -euo pipefail
build=$1
results=$2
shift 2
sizes=$(IFS=,; echo "$*")
ch05="$build/05_ptx_mma_m16n8k16/05_ptx_mma_m16n8k16"
ch02="$build/02_wmma_tiled_gemm/02_wmma_tiled_gemm"
echo "# command: docs/tools/ch05_vs_ch02.sh $build $results $*"
"$ch05" --sizes "$sizes" > "$results/05_ptx_mma_m16n8k16_h200.txt"
sed -n 's/^# device: */# device:  /p' "$results/05_ptx_mma_m16n8k16_h200.txt"
echo "# chapter 05: $(basename "$ch05") --sizes $sizes (full output: $results/05_ptx_mma_m16n8k16_h200.txt)"
echo "# chapter 02: $(basename "$ch02") --sizes S --type f16 --kernel block-tiled, once per size S"
echo "# median of 30 launches after 5 warm-up each; both yardsticks with the kernel's own layout: cublasGemmEx (default"
echo "# algorithm) and cuBLASLt best-of-8 (the fastest of its first 8 heuristic algorithms; \"-\" where it has none)"
printf '%-6s %-40s %-6s %9s %9s %13s %9s %9s %9s\n' size kernel layout ms TFLOP/s "cublasGemmEx" "% gemmEx" "Lt best8" \
  "% Lt best8"
for s in "$@"; do
  out=$("$ch02" --sizes "$s" --type f16 --kernel block-tiled)
  # Rows are read from each binary's "== results" section only (other sections print rows that start alike). Both
  # print the driver's table (tc/gemm_driver.hpp): "SxSxS  kernel  type  op  ms  TFLOP/s  cublasGemmEx  %gemmEx
  # cuBLASLt-1st  cuBLASLt-best-of-8  %best-of-8 ...".
  row='/^== results/ { on = 1; next } /^== / { on = 0 } on && $1 == size && $2 == kernel && $3 == "f16->f32"'
  wmma=$(awk -v size="${s}x${s}x${s}" -v kernel=block-tiled "$row"' { print $5, $6, $7, $8, $10, $11 }' <<<"$out")
  mma=$(awk -v size="${s}x${s}x${s}" -v kernel=mma.sync "$row"' { print $5, $6, $7, $8, $10, $11 }' \
        "$results/05_ptx_mma_m16n8k16_h200.txt")
  line='%-6s %-40s %-6s %9s %9s %13s %9s %9s %9s\n'
  read -r ms tf cu share lt lt_share <<<"$wmma"
  printf "$line" "$s" "02 block-tiled, WMMA (load_matrix_sync)" NN "$ms" "$tf" "$cu" "$share" "$lt" "$lt_share"
  read -r ms tf cu share lt lt_share <<<"$mma"
  printf "$line" "$s" "05 mma.sync, fragments by plain loads" TN "$ms" "$tf" "$cu" "$share" "$lt" "$lt_share"
done
