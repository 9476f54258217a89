#!/usr/bin/env bash
# The wrong-architecture guard on real chapter binaries: configures a build with sm_80 SASS only and no PTX
# (-DCMAKE_CUDA_ARCHITECTURES=80-real), builds chapters 01 and 02, runs each on this machine's GPU and records what it
# printed and its exit code in docs/results/wrong_arch_<gpu>.txt. On a GPU that is not sm_8x (an H100 or H200) each
# must print the guard's one line and exit 5 (README, "Exit codes"). Usage:
#   docs/tools/wrong_arch_check.sh <scratch build dir> <output file>
set -uo pipefail
build=${1:?usage: wrong_arch_check.sh <scratch build dir> <output file>}
out=${2:?usage: wrong_arch_check.sh <scratch build dir> <output file>}
cmake -S . -B "${build}" -DCMAKE_CUDA_ARCHITECTURES=80-real -DTC_BUILD_TESTS=OFF > "${build}.log" 2>&1 &&
  cmake --build "${build}" -j 16 --target 01_wmma_single_tile 02_wmma_tiled_gemm >> "${build}.log" 2>&1 ||
  { tail -n 20 "${build}.log"; exit 1; }
{
  echo "# command: docs/tools/wrong_arch_check.sh ${build} ${out}"
  echo "# device:  $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -n 1)"
  echo "# build:   cmake -S . -B ${build} -DCMAKE_CUDA_ARCHITECTURES=80-real (sm_80 SASS only, no PTX)"
  for chapter in 01_wmma_single_tile 02_wmma_tiled_gemm; do
    echo
    echo "== ${build}/${chapter}/${chapter} =="
    "${build}/${chapter}/${chapter}" 2>&1
    echo "exit code $?"
  done
} > "${out}"
cat "${out}"
