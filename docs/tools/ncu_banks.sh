#!/usr/bin/env bash
# ncu_banks.sh <04_int8_imma_shared binary> <size>: the shared-memory bank counters of chapter 04's kernel for each
# skew (s8, size^3), one row each. Profiles the kernel's first launch (the verified one) with Nsight Compute, clocks
# left as the GPU runs them (--clock-control none), and prints: kernel time; LDSM and LDGSTS (cp.async) instructions;
# shared-memory wavefronts and bank conflicts, in total and for the _op_ld / _op_st subsets. A metric this ncu does not
# know prints as "n/a". Needs ncu and a GPU it may profile; exits 1 with ncu's message where it refuses.
# Makes docs/results/04_int8_imma_shared_ncu_<size>.txt. Source: Nsight Compute documentation, "Kernel Profiling
# Guide" (l1tex__data_bank_conflicts_pipe_lsu_mem_shared*, l1tex__data_pipe_lsu_wavefronts_mem_shared*).
set -euo pipefail
binary=$1
size=$2
wanted="gpu__time_duration smsp__inst_executed_op_ldsm smsp__inst_executed_op_ldgsts
l1tex__data_pipe_lsu_wavefronts_mem_shared l1tex__data_bank_conflicts_pipe_lsu_mem_shared
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ncu --query-metrics > "$work/known" 2>&1 || true
metrics=""
for m in $wanted; do
  if grep -qE "^$m[[:space:]]" "$work/known"; then metrics+="${metrics:+,}$m.sum"; fi
done
echo "# command: docs/tools/ncu_banks.sh $(basename "$binary") $size"
echo "# $(ncu --version | tail -n 1); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
echo "== ncu: shared-memory banks of imma_shared_gemm_kernel, s8, ${size} x ${size} x ${size} =="
printf "%4s %9s %10s %10s | %12s %12s | %12s %12s | %12s %12s\n" skew "time us" LDSM LDGSTS "wavefronts" \
  "conflicts" "ld wavefr" "ld confl" "st wavefr" "st confl"
for skew in 0 16 32; do
  if ! ncu --clock-control none --kernel-name regex:imma_shared_gemm_kernel --launch-count 1 --metrics "$metrics" \
    --export "$work/r" --force-overwrite "$binary" --sizes "$size" --type s8 --skew "$skew" --warmup 0 \
    --repeats 20 > "$work/log" 2>&1; then
    grep -m 3 -E "ERR|error" "$work/log" >&2 || tail -n 3 "$work/log" >&2
    exit 1
  fi
  ncu --import "$work/r.ncu-rep" --csv --page raw --print-units base > "$work/raw.csv"
  awk -F'","' -v skew="$skew" '
    NR == 1 { for (i = 1; i <= NF; ++i) { gsub(/"/, "", $i); col[$i] = i } next }
    NR == 2 { next }
    NR == 3 {
      for (i = 1; i <= NF; ++i) { gsub(/"/, "", $i); gsub(/,/, "", $i); v[i] = $i }
      list = "smsp__inst_executed_op_ldsm.sum smsp__inst_executed_op_ldgsts.sum"
      list = list " l1tex__data_pipe_lsu_wavefronts_mem_shared.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"
      list = list " l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
      list = list " l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
      list = list " l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
      list = list " l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
      n = split(list, names, " ")
      t = ("gpu__time_duration.sum" in col) ? sprintf("%.1f", v[col["gpu__time_duration.sum"]] / 1000) : "n/a"
      line = sprintf("%4s %9s", skew, t)
      for (j = 1; j <= n; ++j) {
        w = (j <= 2) ? 10 : 12
        s = (names[j] in col) ? sprintf("%d", v[col[names[j]]]) : "n/a"
        line = line sprintf(" %" w "s", s)
        if (j == 2 || j == 4 || j == 6) line = line " |"
      }
      print line
    }' "$work/raw.csv"
done
echo "wavefronts / conflicts: all shared-memory traffic of the lsu pipe (LDSM, LDGSTS writes, stores); ld / st: the"
echo "_op_ld and _op_st subsets. Compare with the bank calculator's prediction printed by the chapter binary."
