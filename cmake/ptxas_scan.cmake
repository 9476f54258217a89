# ptxas_scan.cmake: compiles one CUDA source with ptxas's resource report (-Xptxas -v) and scans what ptxas says, for
# two bugs that leave a kernel computing the right answer, slowly:
#   - lost wgmma overlap (sm_90a): ptxas reports a wgmma pipeline it had to serialize, or waits and arrives it had to
#     inject around the accumulator registers, as "info" lines with codes C7510-C7519 ("wgmma.mma_async instructions
#     are serialized due to ...", "warpgroup.wait is injected ..."), not as warnings, so -Werror cannot catch them;
#   - register spills: each kernel's "N bytes spill stores, N bytes spill loads" line. A kernel may spill only where
#     ALLOW_SPILLS names it (a substring of its mangled name) with the bytes it may spill and why.
# Usage: cmake -DNVCC=<nvcc> -DSOURCE=<file.cu> -DINCLUDES="<dir>|<dir>..." -DEXPECT=clean|serialized|spills
#              -DOUTPUT=<cubin> [-DARCH=90a] [-DALLOW_SPILLS="<substring>=<bytes>=<reason>|..."] -P ptxas_scan.cmake
#   EXPECT=clean       fails on any serialization line, and on any spill ALLOW_SPILLS does not allow (the chapters);
#   EXPECT=serialized  fails when ptxas reports no serialization (the canary
#                      common/tests/ptxas_canary_serialized_wgmma.cu: the scan still sees what this toolkit prints);
#   EXPECT=spills      fails when the scan finds no spill (the canary common/tests/ptxas_canary_spills.cu).
#   ARCH: the SASS target, compute_<ARCH>,sm_<ARCH>; 90a (the default) for the wgmma chapters, 90 for the others.
# Errors: a failed compilation, or the verdict above, ends the script with FATAL_ERROR (exit 1) and the lines found.
foreach(var NVCC SOURCE INCLUDES EXPECT OUTPUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "ptxas_scan.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT DEFINED ARCH)
  set(ARCH 90a)
endif()
string(REPLACE "|" ";" include_dirs "${INCLUDES}")
set(include_flags "")
foreach(dir IN LISTS include_dirs)
  list(APPEND include_flags "-I${dir}")
endforeach()
execute_process(
  COMMAND "${NVCC}" -std=c++17 -O3 -DNDEBUG -gencode arch=compute_${ARCH},code=sm_${ARCH} ${include_flags}
          -Xptxas -v -cubin -o "${OUTPUT}" "${SOURCE}"
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nvcc failed on ${SOURCE}:\n${out}${err}")
endif()
set(report "${out}${err}")

# Lost wgmma overlap.
string(REGEX MATCHALL "[^\n]*\\(C751[0-9]\\)[^\n]*|[^\n]*wgmma[^\n]*serialized[^\n]*" hits "${report}")
list(LENGTH hits serialized)

# Spills, kernel by kernel: "Function properties for <name>" and, on the next line, its spill stores and loads.
string(REGEX MATCHALL "Function properties for [^\n]+\n[^\n]*bytes spill stores, [0-9]+ bytes spill loads" props
       "${report}")
string(REPLACE "|" ";" allowances "${ALLOW_SPILLS}")
set(kernels 0)
set(spilling "")
set(refused "")
foreach(p IN LISTS props)
  string(REGEX MATCH "Function properties for ([^\n]+)\n[^\n]* ([0-9]+) bytes spill stores, ([0-9]+) bytes spill loads"
         _ "${p}")
  set(name "${CMAKE_MATCH_1}")
  math(EXPR bytes "${CMAKE_MATCH_2} + ${CMAKE_MATCH_3}")
  math(EXPR kernels "${kernels} + 1")
  if(bytes GREATER 0)
    list(APPEND spilling "${name}: ${CMAKE_MATCH_2} bytes spill stores, ${CMAKE_MATCH_3} bytes spill loads")
    set(allowed -1)
    foreach(a IN LISTS allowances)
      string(REPLACE "=" ";" f "${a}")
      list(GET f 0 substring)
      list(GET f 1 limit)
      string(FIND "${name}" "${substring}" at)
      if(at GREATER -1)
        set(allowed ${limit})
      endif()
    endforeach()
    if(bytes GREATER allowed)
      list(APPEND refused "${name}: ${bytes} bytes of spill stores and loads (allowed: ${allowed})")
    endif()
  endif()
endforeach()
if(kernels EQUAL 0)
  message(FATAL_ERROR "ptxas reported no function properties for ${SOURCE}: without -Xptxas -v's resource lines the "
                      "spill scan proves nothing")
endif()
list(LENGTH spilling spills)

if(EXPECT STREQUAL "clean" AND (serialized GREATER 0 OR refused))
  list(JOIN hits "\n" lines)
  list(JOIN refused "\n" refused_lines)
  message(FATAL_ERROR "ptxas in ${SOURCE}: ${serialized} lines of lost wgmma overlap:\n${lines}\n"
                      "spills no ALLOW_SPILLS entry allows:\n${refused_lines}")
elseif(EXPECT STREQUAL "serialized" AND serialized EQUAL 0)
  message(FATAL_ERROR "ptxas reported no serialized wgmma for the canary ${SOURCE}: the scan no longer sees the "
                      "messages this toolkit prints, so a clean scan of the chapters proves nothing")
elseif(EXPECT STREQUAL "spills" AND spills EQUAL 0)
  message(FATAL_ERROR "the scan found no spill in the canary ${SOURCE}: it no longer reads ptxas's resource lines, so "
                      "a clean scan of the chapters proves nothing")
endif()
message(STATUS "${SOURCE}: ${kernels} functions, ${spills} spilling, ${serialized} wgmma serialization lines "
               "(expected: ${EXPECT})")
foreach(s IN LISTS spilling)
  message(STATUS "  spills: ${s}")
endforeach()
