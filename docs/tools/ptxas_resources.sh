#!/usr/bin/env bash
# ptxas_resources.sh [--arch=sm_90a] <source.cu> <kernel-name-substring> <include-dir>...: compiles <source.cu>, with
# every layer of common on the include path (common/<layer>/include) after the <include-dir>s, for
# sm_90 (with --arch=sm_90a: -gencode arch=compute_90a,code=sm_90a, as the Hopper chapters build their wgmma and
# setmaxnreg code) with -Xptxas -v and prints, for every kernel whose demangled name contains the substring, its
# registers, shared memory, stack and spill bytes as ptxas reports them. Runs on any machine with nvcc (no GPU). Used
# to make docs/results/06_ptxas_sm90.txt and 08_ptxas_sm90.txt, which docs/06 and docs/08 quote. A chapter's generated
# headers (chapter_config.hpp) exist once a preset is configured, e.g. build/default/06_ldmatrix_cp_async/generated
# after `cmake --preset default`.
# Errors: a missing source or include directory, or a failed compilation, prints why on stderr and exits 1; bad usage
# exits 2.
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: $0 [--arch=sm_90a] <source.cu> <kernel-name-substring> <include-dir>..." >&2
  exit 2
fi
invocation="docs/tools/ptxas_resources.sh $*"  # recorded in the output as run, from the repository root
arch_flags=(-arch=sm_90)
if [ "$1" = "--arch=sm_90a" ]; then
  arch_flags=(-gencode arch=compute_90a,code=sm_90a)
  shift
fi
if [ $# -lt 2 ]; then
  echo "usage: $0 [--arch=sm_90a] <source.cu> <kernel-name-substring> <include-dir>..." >&2
  exit 2
fi
source=$1
pattern=$2
shift 2
[ -f "$source" ] || { echo "error: $source does not exist" >&2; exit 1; }
includes=()
for dir in "$@"; do
  [ -d "$dir" ] || { echo "error: include directory $dir does not exist (configure a preset first, e.g. cmake --preset default)" >&2; exit 1; }
  includes+=("-I$dir")
done
common=$(cd "$(dirname "$0")/../../common" && pwd)
for dir in "$common"/*/include; do
  includes+=("-I$dir")
done
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! nvcc -std=c++17 -O3 "${arch_flags[@]}" -Xptxas -v "${includes[@]}" -c "$source" -o /dev/null >"$log" 2>&1; then
  cat "$log" >&2
  echo "error: nvcc failed on $source (its output is above)" >&2
  exit 1
fi
echo "# command: $invocation"
echo "# $(nvcc --version | tail -n 1); nvcc -std=c++17 -O3 ${arch_flags[*]} -Xptxas -v"
awk '/Compiling entry function/ { name = $0; sub(/.*function .?_/, "_", name); sub(/.? for .*/, "", name); next }
     name && /bytes stack frame/ { frame[name] = $0 }
     name && /Used [0-9]+ registers/ { print name "\t" frame[name] "\t" $0; name = "" }' "$log" |
  while IFS=$'\t' read -r mangled frame used; do
    demangled=$(c++filt "$mangled")
    case "$demangled" in *"$pattern"*) ;; *) continue ;; esac
    echo "== $(sed -E 's/^void ([A-Za-z_0-9:]+)<(.*)>\(.*$/\1<\2>/' <<<"$demangled") =="
    echo "   $(sed -E 's/^ptxas info *: *//' <<<"$used")"
    echo "   $(sed -E 's/^ *//' <<<"$frame")"
  done
