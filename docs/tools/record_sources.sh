#!/usr/bin/env bash
# Records which tree a results file measured: its "# commit:" line (git's short hash of HEAD and the date, "with
# uncommitted changes" when the working tree differs from it) and its "# sources:" line with the manifest
# docs/results/sources/<file>.sources (docs/tools/source_record.hpp). Run it right after the run, on the tree the run
# built, with a build folder of the default preset (or any Makefile-generator build) that holds the measured targets:
#   docs/tools/record_sources.sh <results file> <build dir> <target>...
# e.g. docs/tools/record_sources.sh docs/results/sanitizer_h200.txt build/default 08_warp_specialized_gemm
# The environment variable TC_COMMIT, when set, replaces git's answer (a machine whose checkout has no history of its
# own, as the GPU host's copy of the tree has not). Exits with doc_sync's code: 1 on a missing target or dependency
# file, 2 on bad usage.
set -euo pipefail
results=${1:?usage: record_sources.sh <results file> <build dir>[:<build dir>...] <target>...}
build=${2:?usage: record_sources.sh <results file> <build dir> <target>...}
shift 2
[ $# -gt 0 ] || { echo "usage: record_sources.sh <results file> <build dir> <target>..." >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
doc_sync=${build%%:*}/docs/doc_sync  # the first build folder of a list
[ -x "${doc_sync}" ] || { echo "error: ${doc_sync} not built: cmake --build ${build} --target doc_sync" >&2; exit 1; }
if [ -n "${TC_COMMIT:-}" ]; then
  commit=${TC_COMMIT}
else
  commit="$(git -C "${root}" rev-parse --short HEAD) ($(date -u '+%Y-%m-%d')"
  if [ -n "$(git -C "${root}" status --porcelain --untracked-files=no)" ]; then
    commit="${commit}, with uncommitted changes"
  fi
  commit="${commit})"
fi
exec "${doc_sync}" record "${root}" "${results}" "${build}" "${commit}" "$@"
