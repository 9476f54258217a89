# ptxas_scan.cmake: compiles one CUDA source for sm_90a and scans what ptxas says for lost wgmma overlap.
#
# ptxas reports a wgmma pipeline it had to serialize, or waits and arrives it had to inject around the accumulator
# registers, as "info" lines with codes C7510-C7519 ("wgmma.mma_async instructions are serialized due to ...",
# "warpgroup.wait is injected ..."), not as warnings, so -Werror cannot catch them. Each is a kernel running far below
# its ceiling while still computing the right answer, so the chapters' tests fail on any of them.
# Usage: cmake -DNVCC=<nvcc> -DSOURCE=<file.cu> -DINCLUDES="<dir>|<dir>..." -DEXPECT=clean|serialized
#              -DOUTPUT=<cubin> -P ptxas_scan.cmake
#   EXPECT=clean       fails when ptxas reports any such line (the chapters' kernels);
#   EXPECT=serialized  fails when it reports none (the canary, common/tests/ptxas_canary_serialized_wgmma.cu, which
#                      proves that the scan still sees the messages this toolkit prints).
# Errors: a failed compilation, or the verdict above, ends the script with FATAL_ERROR (exit 1) and the lines found.
foreach(var NVCC SOURCE INCLUDES EXPECT OUTPUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "ptxas_scan.cmake: -D${var}=... is required")
  endif()
endforeach()
string(REPLACE "|" ";" include_dirs "${INCLUDES}")
set(include_flags "")
foreach(dir IN LISTS include_dirs)
  list(APPEND include_flags "-I${dir}")
endforeach()
execute_process(
  COMMAND "${NVCC}" -std=c++17 -O3 -DNDEBUG -gencode arch=compute_90a,code=sm_90a ${include_flags} -cubin
          -o "${OUTPUT}" "${SOURCE}"
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nvcc failed on ${SOURCE}:\n${out}${err}")
endif()
string(REGEX MATCHALL "[^\n]*\\(C751[0-9]\\)[^\n]*|[^\n]*wgmma[^\n]*serialized[^\n]*" hits "${out}${err}")
list(LENGTH hits count)
if(EXPECT STREQUAL "clean" AND count GREATER 0)
  list(JOIN hits "\n" lines)
  message(FATAL_ERROR "ptxas lost wgmma overlap in ${SOURCE} (${count} lines):\n${lines}")
elseif(EXPECT STREQUAL "serialized" AND count EQUAL 0)
  message(FATAL_ERROR "ptxas reported no serialized wgmma for the canary ${SOURCE}: the scan no longer sees the "
                      "messages this toolkit prints, so a clean scan of the chapters proves nothing")
endif()
message(STATUS "${SOURCE}: ${count} wgmma serialization lines from ptxas (expected: ${EXPECT})")
