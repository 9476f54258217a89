#!/usr/bin/env bash
# ncu_fragment_loads.sh <build-dir> <size>: what fragment loading costs, chapter 02's block-tiled WMMA GEMM (f16)
# beside chapter 05's mma.sync GEMM at size^3: instructions (shared loads, LDSM, HMMA, all), shared-memory wavefronts
# and bank conflicts of the loads, tensor-pipe activity, and the warp stall reasons that tell load-bound from
# math-bound. One row per metric, one column per kernel; a metric this ncu does not know prints as "n/a". Profiles
# each kernel's first launch (the verified one), clocks left as the GPU runs them (--clock-control none). Needs ncu
# and a GPU it may profile; exits 1 with ncu's message where it refuses. Makes docs/results/05_ncu_<size>.txt.
# Source: Nsight Compute documentation, "Kernel Profiling Guide" (metric names, warp stall reasons).
set -euo pipefail
build=$1
size=$2
wanted="gpu__time_duration.sum smsp__inst_executed.sum smsp__inst_executed_op_shared_ld.sum
smsp__inst_executed_op_ldsm.sum smsp__inst_executed_pipe_tensor_op_hmma.sum
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio
smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio
smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio
smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ncu --query-metrics > "$work/known" 2>&1 || true
metrics=""
for m in $wanted; do
  if grep -qE "^${m%%.*}[[:space:]]" "$work/known"; then metrics+="${metrics:+,}$m"; fi
done
profile() {  # profile <name> <kernel regex> <command...>: the raw CSV of one kernel's first launch
  local name=$1 kernel=$2
  shift 2
  if ! ncu --clock-control none --kernel-name "regex:$kernel" --launch-count 1 --metrics "$metrics" \
    --export "$work/$name" --force-overwrite "$@" > "$work/log" 2>&1; then
    grep -m 3 -E "ERR|error" "$work/log" >&2 || tail -n 3 "$work/log" >&2
    exit 1
  fi
  ncu --import "$work/$name.ncu-rep" --csv --page raw --print-units base > "$work/$name.csv"
}
profile ch02 '^wmma_block_tiled_gemm_kernel' "$build/02_wmma_tiled_gemm/02_wmma_tiled_gemm" --sizes "$size" \
  --type f16 --kernel block-tiled --warmup 0 --repeats 20
profile ch05 '^mma_gemm_kernel' "$build/05_ptx_mma_m16n8k16/05_ptx_mma_m16n8k16" --sizes "$size" --warmup 0 \
  --repeats 20
echo "# command: docs/tools/ncu_fragment_loads.sh $build $size"
echo "# $(ncu --version | tail -n 1); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
echo "== ncu: fragment loads, ${size} x ${size} x ${size}, fp16 in, fp32 accumulate =="
printf "%-74s %16s %16s\n" metric "02 WMMA (NN)" "05 mma.sync (TN)"
for m in $wanted; do
  row=$(printf "%-74s" "$m")
  for name in ch02 ch05; do
    # Row 1 names the metrics, row 2 their units, row 3 the values; fields are quoted, numbers may carry commas.
    value=$(awk -F'","' -v m="$m" '
      NR == 1 { for (i = 1; i <= NF; ++i) { gsub(/"/, "", $i); if ($i == m) c = i } next }
      NR == 3 && c { gsub(/"/, "", $c); gsub(/,/, "", $c); print $c }' "$work/$name.csv")
    row+=$(printf " %16s" "${value:-n/a}")
  done
  echo "$row"
done
echo "Instruction counts are warp instructions over the whole kernel; stall ratios are warps stalled for that reason"
echo "per issued instruction (mio_throttle: the shared-memory instruction queue is full)."
