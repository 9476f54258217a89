#!/usr/bin/env bash
# ncu_loads.sh <03_transpose_layouts binary> <size>: the global-load counters of chapter 03's kernel for every type and
# op at size^3, one row each. For each (type, op) it profiles the kernel's first launch (the verified one) with Nsight
# Compute, clocks left as the GPU runs them (--clock-control none), and prints: kernel time; warp-level global load
# instructions; L1 requests and 32-byte sectors for global loads and their ratio (sectors per request); the L1 hit
# rate of those sectors; the sectors L1 fetched from L2; and the bytes L2 fetched from DRAM. Needs ncu from the CUDA
# toolkit and a GPU it may profile; exits 1 with ncu's message where it refuses. Makes docs/results/03_*_ncu_*.txt.
# Source: Nsight Compute documentation, "Kernel Profiling Guide" (metric names: l1tex__t_requests/sectors, lts__t_*).
set -euo pipefail
binary=$1
size=$2
metrics=gpu__time_duration.sum,smsp__inst_executed_op_global_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct
metrics+=,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "# command: docs/tools/ncu_loads.sh $(basename "$binary") $size"
echo "# $(ncu --version | tail -n 1); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
echo "== ncu: global loads of wmma_transposed_gemm_kernel, ${size} x ${size} x ${size} =="
printf "%-10s %-3s %9s %10s %10s %11s %8s %7s %11s %9s\n" type op "time us" "ld instr" requests sectors "sect/req" \
  "L1 hit" "L2->L1 sect" "DRAM MB"
for type in f16 s8; do
  for op in NN NT TN TT; do
    if ! ncu --clock-control none --kernel-name regex:wmma_transposed_gemm_kernel --launch-count 1 --metrics "$metrics" \
      --export "$work/r" --force-overwrite "$binary" --sizes "$size" --type "$type" --op "$op" --warmup 0 \
      --repeats 20 > "$work/log" 2>&1; then
      grep -m 3 -E "ERR|error" "$work/log" >&2 || tail -n 3 "$work/log" >&2
      exit 1
    fi
    # --page raw: a header row of metric names, a row of units, then one row per profiled kernel.
    ncu --import "$work/r.ncu-rep" --csv --page raw --print-units base > "$work/raw.csv"
    awk -F'","' -v type="$type" -v op="$op" '
      NR == 1 { for (i = 1; i <= NF; ++i) { gsub(/"/, "", $i); col[$i] = i } next }
      NR == 2 { next }
      NR == 3 {
        for (i = 1; i <= NF; ++i) { gsub(/"/, "", $i); gsub(/,/, "", $i); v[i] = $i }
        req = v[col["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]]
        sec = v[col["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]]
        printf "%-10s %-3s %9.1f %10d %10d %11d %8.2f %6.1f%% %11d %9.1f\n", type, op,
          v[col["gpu__time_duration.sum"]] / 1000, v[col["smsp__inst_executed_op_global_ld.sum"]], req, sec,
          (req > 0 ? sec / req : 0), v[col["l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct"]],
          v[col["lts__t_sectors_srcunit_tex_op_read.sum"]], v[col["dram__bytes_read.sum"]] / 1e6
      }' "$work/raw.csv"
  done
done
echo "time: one launch under the profiler; ld instr: warp-level global load instructions; sect/req: 32-byte sectors per"
echo "L1 request; L1 hit: share of those sectors found in L1; L2->L1 sect: sectors L1 fetched from L2."
