#!/usr/bin/env bash
# A stand-in for compute-sanitizer, for cmake/tests/check_run_sanitizer.cmake: it ignores its arguments and behaves as
# FAKE_SANITIZER says, each mode one way a real run can end.
case "${FAKE_SANITIZER:-}" in
  clean)   echo "========= COMPUTE-SANITIZER"; echo "RESULT: every kernel matches the reference"
           echo "========= ERROR SUMMARY: 0 errors"; exit 0 ;;
  hazards) echo "========= COMPUTE-SANITIZER"; echo "========= RACECHECK SUMMARY: 2 hazards displayed (2 errors, 0 warnings)"
           exit 1 ;;
  mismatch) echo "========= COMPUTE-SANITIZER"; echo "RESULT: MISMATCH"; echo "========= ERROR SUMMARY: 0 errors"; exit 1 ;;
  crash)   echo "========= COMPUTE-SANITIZER"; echo "Segmentation fault (core dumped)" >&2; exit 139 ;;
  silent)  exit 0 ;;
  refuse)  echo "========= COMPUTE-SANITIZER"; echo "========= Error: Device not supported"; exit 1 ;;
  no_gpu)  echo "========= COMPUTE-SANITIZER"; echo "skipped: chapter 02 needs a GPU of SM >= 8.0; no NVIDIA GPU found"
           echo "========= ERROR SUMMARY: 0 errors"; exit 77 ;;
  unexplained_77) echo "========= COMPUTE-SANITIZER"; echo "========= ERROR SUMMARY: 0 errors"; exit 77 ;;
  *) echo "fake_compute_sanitizer.sh: unknown FAKE_SANITIZER '${FAKE_SANITIZER:-}'" >&2; exit 2 ;;
esac
