#!/usr/bin/env bash
# A stand-in chapter binary for cmake/tests/check_ladder_resume.cmake: fake_ladder_chapter.sh <chapter> --csv <file>
# prints a "# device:" line as tc::print_run_header does and appends two rows to <file> (the header first if it is
# missing), as tc::append_bench_csv does. With FAKE_LADDER_KILL=<chapter> it appends one row marked PARTIAL, then kills
# the ladder that runs it (its parent, a cmake -P process), as a time limit would.
set -eu
chapter=$1
csv=$3
echo "# device:  FAKE GPU (sm_90, 1 SMs, 1.0 GiB), driver 13.0, runtime 13.0"
header="chapter,kernel,precision,layout,m,n,k,ms,tflops,cublas_ms,cublas_tflops,pct_cublas,verdict"
grep -qx "$header" "$csv" 2>/dev/null || echo "$header" >> "$csv"
if [ "${FAKE_LADDER_KILL:-}" = "$chapter" ]; then
  echo "$chapter,PARTIAL,f16->f32,TN,1024,1024,1024,1.0,1.0,1.0,1.0,100.0,PASS" >> "$csv"
  kill -KILL "$PPID"
  exit 0
fi
for kernel in one two; do
  echo "$chapter,$kernel,f16->f32,TN,1024,1024,1024,1.0,1.0,1.0,1.0,100.0,PASS" >> "$csv"
done
