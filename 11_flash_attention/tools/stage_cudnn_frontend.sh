#!/usr/bin/env bash
# Stages the cuDNN frontend's headers (header-only C++) for chapter 11's yardstick, from PyPI's nvidia-cudnn-frontend
# wheel, into .deps/cudnn_frontend/include of this checkout (ignored by git), for a machine without network to carry:
#   11_flash_attention/tools/stage_cudnn_frontend.sh [version]        (default 1.32.0)
# then configure with -DTC_CUDNN_FRONTEND_INCLUDE=$PWD/.deps/cudnn_frontend/include (and -DTC_CUDNN_ROOT=<folder of
# cuDNN's include/ and lib/> where cuDNN is not in the system's paths). Needs pip and unzip. Exit codes: 0 staged;
# 1 the download or the unpacking failed.
set -euo pipefail
version=${1:-1.32.0}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "${work}"' EXIT
python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.11 --platform manylinux_2_28_x86_64 \
  -d "${work}" "nvidia-cudnn-frontend==${version}"
rm -rf "${root}/.deps/cudnn_frontend"
mkdir -p "${root}/.deps/cudnn_frontend"
unzip -q "${work}"/nvidia_cudnn_frontend-*.whl 'include/*' -d "${root}/.deps/cudnn_frontend"
echo "staged the cuDNN frontend ${version}: ${root}/.deps/cudnn_frontend/include"
