#!/usr/bin/env bash
# ptxas_resources.sh <source.cu> <kernel-name-substring> <include-dir>...: compiles <source.cu> for sm_90 with
# -Xptxas -v and prints, for every kernel whose demangled name contains the substring, its registers, shared memory,
# stack and spill bytes as ptxas reports them. Runs on any machine with nvcc (no GPU). Used to make
# docs/results/06_ptxas_sm90.txt, which docs/06 quotes.
set -euo pipefail
source=$1
pattern=$2
shift 2
includes=()
for dir in "$@"; do includes+=("-I$dir"); done
echo "# command: docs/tools/ptxas_resources.sh $(basename "$source") $pattern"
echo "# $(nvcc --version | tail -n 1); nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v"
nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v "${includes[@]}" -c "$source" -o /dev/null 2>&1 |
  awk '/Compiling entry function/ { name = $0; sub(/.*function .?_/, "_", name); sub(/.? for .*/, "", name); next }
       name && /bytes stack frame/ { frame[name] = $0 }
       name && /Used [0-9]+ registers/ { print name "\t" frame[name] "\t" $0; name = "" }' |
  while IFS=$'\t' read -r mangled frame used; do
    demangled=$(c++filt "$mangled")
    case "$demangled" in *"$pattern"*) ;; *) continue ;; esac
    echo "== $(sed -E 's/^void ([a-z_0-9]+)<(.*)>\(.*$/\1<\2>/' <<<"$demangled") =="
    echo "   $(sed -E 's/^ptxas info *: *//' <<<"$used")"
    echo "   $(sed -E 's/^ *//' <<<"$frame")"
  done
