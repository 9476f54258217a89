#!/usr/bin/env bash
# async_proxy_race.sh <07_async_proxy_race binary> <output file>: runs chapter 07's deliberately racy kernel (a TMA
# destination read before its mbarrier wait; 07_wgmma_tma/tools/async_proxy_race.cu) under compute-sanitizer
# racecheck, synccheck and memcheck, and writes each command, its exit code and the tool's summary. Used to make
# docs/results/07_async_proxy_race_h200.txt: whether the tools model the async proxy. Needs an SM 9.0 GPU and
# compute-sanitizer.
set -uo pipefail
exe=${1:?usage: async_proxy_race.sh <07_async_proxy_race binary> <output file>}
out=${2:?usage: async_proxy_race.sh <07_async_proxy_race binary> <output file>}
{
  echo "# command: docs/tools/async_proxy_race.sh $exe $out"
  echo "# device:  $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -n 1)"
  echo "# tool:    $(compute-sanitizer --version 2>&1 | grep -m1 Version || echo 'compute-sanitizer not on PATH')"
  for tool in racecheck synccheck memcheck; do
    options=(--tool "$tool")
    [ "$tool" = racecheck ] && options+=(--racecheck-report all)
    log=$(compute-sanitizer "${options[@]}" "$exe" 2>&1)
    rc=$?
    echo
    echo "== $tool: compute-sanitizer ${options[*]} $(basename "$exe") =="
    echo "exit code $rc; $(grep -m1 '^07_async_proxy_race' <<<"$log")"
    grep -E 'SUMMARY|Hazard|Error' <<<"$log" | sed -E 's/^========= //'
  done
} >"$out"
cat "$out"
