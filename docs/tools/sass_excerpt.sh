#!/usr/bin/env bash
# sass_excerpt.sh <binary> <kernel-name-substring> [counts|no-global]: for every kernel in <binary> whose name
# contains the substring, prints "== sass: <kernel><<template arguments>> ==" and the machine instructions that touch
# memory or the Tensor Cores (global, shared and generic loads and stores, LDSM, LDGSTS (cp.async),
# HMMA/IMMA/DMMA/HGMMA), Hopper's asynchronous machinery (UTMALDG: a TMA load; SYNCS: mbarrier operations; WARPGROUP:
# wgmma's fence and wait; FENCE: the proxy fences) and the ones that move data between lanes or halves of a register
# (MOVM, PRMT, SHFL), without addresses or encodings. With "counts", how many of each opcode instead, most frequent
# first (for kernels too long to read whole); with "no-global", the list without global loads and stores (LDG, STG:
# an epilogue's, which would drown a main loop). Needs cuobjdump (the CUDA toolkit's, or the pip package
# nvidia-cuda-cuobjdump) and a demangler: binutils' c++filt first (it writes template arguments as 4, not (int)4, and
# the committed excerpts and their kernel patterns use its spelling), else the toolkit's cu++filt. Used to make
# docs/results/*_sass_*.txt, which the walkthroughs quote, and by the test that holds their HGMMA counts to the
# binaries (cmake/sass_facts.cmake).
set -euo pipefail
binary=$1
pattern=$2
mode=${3:-list}
echo "# command: docs/tools/sass_excerpt.sh $(basename "$binary") $pattern${3:+ $3}"
echo "# $(nvcc --version | tail -n 1)"
demangle=$(command -v c++filt || command -v cu++filt)
cuobjdump --dump-sass "$binary" | sed -n 's/^[[:space:]]*Function : \(.*\)$/\1/p' | sort -u | while read -r mangled; do
  name=$("$demangle" "$mangled")
  case "$name" in *"$pattern"*) ;; *) continue ;; esac
  # "void k<A, B>(args)" -> "k<A, B>": the kernel and the template arguments say which instantiation this is.
  echo "== sass: $(sed -E 's/^void ([A-Za-z_0-9:]+)<(.*)>\(.*$/\1<\2>/' <<<"$name") =="
  cuobjdump --dump-sass --function "$mangled" "$binary" |
    grep -E '\b(LDG|STG|LDS|STS|LDSM|LDGSTS|LD|ST|MOVM|PRMT|SHFL|HMMA|IMMA|DMMA|HGMMA|UTMALDG|SYNCS|WARPGROUP|FENCE)\b' |
    sed -E 's@/\*[^*]*\*/@@g; s/[[:space:]]+/ /g; s/^ //; s/ ?; ?$//' |
    if [ "$mode" = no-global ]; then
      grep -vE '^(LDG|STG)\.E'
    elif [ "$mode" = counts ]; then
      awk '{ print ($1 ~ /^@/) ? $2 : $1 }' | sort | uniq -c | sort -k1,1nr -k2
    else
      cat
    fi
  echo
done
