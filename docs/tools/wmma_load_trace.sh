#!/usr/bin/env bash
# wmma_load_trace.sh <03_load_trace binary> [ld]: the addresses one warp's load_matrix_sync reads, measured. For each
# fragment kind (matrix_a, matrix_b), type (f16, s8) and layout (row_major, col_major) it runs 03_load_trace under
# compute-sanitizer memcheck, which reports every lane's access of the first load instruction, and prints
# "== trace: <fragment> <type> <layout>, ld <ld> ==" with one row per lane: the tile line it reads (a row for
# row_major, a column for col_major), the element along that line, and the access size in bytes. Needs
# compute-sanitizer and a GPU it accepts; exits 1 where it refuses. Makes docs/results/03_wmma_load_trace_sm90.txt.
set -euo pipefail
binary=$1
ld=${2:-64}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "# command: docs/tools/wmma_load_trace.sh $(basename "$binary") $ld"
echo "# $(compute-sanitizer --version | grep -m 1 -i version); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
for fragment in matrix_a matrix_b; do
  for type in f16 s8; do
    bytes=$([ "$type" = f16 ] && echo 2 || echo 1)
    for layout in row_major col_major; do
      # The load faults by design, so the program's exit code is not the test; the reports are.
      compute-sanitizer --tool memcheck --print-limit 1000 "$binary" --fragment $fragment --type $type \
        --layout $layout --ld "$ld" > "$log" 2>&1 || true
      base=$(sed -n 's/^tile \(0x[0-9a-f]*\) .*/\1/p' "$log")
      if [ -z "$base" ] || ! grep -q "Invalid __global__ read" "$log"; then
        echo "no memcheck reports for $fragment $type $layout:" >&2
        tail -n 5 "$log" >&2
        exit 1
      fi
      echo "== trace: $fragment $type $layout, ld $ld =="
      echo "lane line element bytes"
      # Each report: "read of size S bytes", then "by thread (T,0,0)", then "Access to 0xADDR".
      sed -n 's/.*read of size \([0-9]*\) bytes.*/S \1/p; s/.*by thread (\([0-9]*\),0,0).*/T \1/p;
              s/.*Access to \(0x[0-9a-f]*\) .*/A \1/p' "$log" |
        while read -r kind value; do
          case $kind in
            S) size=$value ;;
            T) lane=$value ;;
            A) offset=$(( (value - base) / bytes ))
               echo "$lane $(( offset / ld )) $(( offset % ld )) $size" ;;
          esac
        done | sort -n -k1,1
    done
  done
done
