# ptxas_scan.cmake: compiles one CUDA source with ptxas's resource report (-Xptxas -v) and scans what ptxas says, for
# two bugs that leave a kernel computing the right answer, slowly:
#   - lost wgmma overlap (sm_90a): ptxas reports a wgmma pipeline it had to serialize, or waits and arrives it had to
#     inject around the accumulator registers, as "info" lines with codes C7510-C7519 ("wgmma.mma_async instructions
#     are serialized due to ...", "warpgroup.wait is injected ..."), not as warnings, so -Werror cannot catch them;
#   - register spills: each kernel's "N bytes spill stores, N bytes spill loads" line. A kernel may spill only where
#     ALLOW_SPILLS names it (a substring of its mangled name) with the bytes it may spill and why;
# and, where CUOBJDUMP is given, one that leaves a kernel measuring less work than it counts:
#   - deleted wgmmas: ptxas deletes a wgmma whose result nothing reads (asm volatile or not) and, inside a group,
#     leaves a placeholder HGMMA on RZ and gdesc[URZ] in the SASS, with no message at all. A ceiling kernel that issues
#     work it never reads then times less than it counts (chapter 11's did: docs/11, "The two ceilings").
# Usage: cmake -DNVCC=<nvcc> -DSOURCE=<file.cu> -DINCLUDES="<dir>|<dir>..." -DEXPECT=clean|serialized|spills|deleted
#              -DOUTPUT=<cubin> [-DARCH=90a] [-DALLOW_SPILLS="<substring>=<bytes>=<reason>|..."]
#              [-DCUOBJDUMP=<cuobjdump>] -P ptxas_scan.cmake
#   EXPECT=clean       fails on any serialization line, on any spill ALLOW_SPILLS does not allow, and on any
#                      placeholder HGMMA (the chapters);
#   EXPECT=serialized  fails when ptxas reports no serialization (the canary
#                      common/tests/ptxas_canary_serialized_wgmma.cu: the scan still sees what this toolkit prints);
#   EXPECT=spills      fails when the scan finds no spill (the canary common/tests/ptxas_canary_spills.cu);
#   EXPECT=deleted     fails when the SASS holds no placeholder HGMMA (the canary
#                      common/tests/ptxas_canary_deleted_wgmma.cu), or when CUOBJDUMP is not given.
#   ARCH: the SASS target, compute_<ARCH>,sm_<ARCH>; 90a (the default) for the wgmma chapters, 90 for the others.
# Errors: a failed compilation, or the verdict above, ends the script with FATAL_ERROR (exit 1) and the lines found.
# The policies of CMake 3.25, the project's minimum: a script run with -P starts with every policy OLD, and under OLD
# CMP0054 `EXPECT STREQUAL "spills"` compares EXPECT with the value of the variable `spills` (a count), so that the
# canaries' verdicts below could never fail.
cmake_policy(VERSION 3.25)
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

# Deleted wgmmas: every placeholder HGMMA in the cubin's SASS, each with the function it is in.
set(placeholder_lines "")
if(CUOBJDUMP)
  execute_process(COMMAND "${CUOBJDUMP}" -sass "${OUTPUT}" OUTPUT_VARIABLE sass ERROR_VARIABLE sass_err
                  RESULT_VARIABLE sass_rc)
  if(NOT sass_rc EQUAL 0)
    message(FATAL_ERROR "cuobjdump -sass failed on ${OUTPUT}:\n${sass_err}")
  endif()
  string(REGEX MATCHALL "Function : [^\n]+|HGMMA[^\n;]* RZ, gdesc\\[URZ\\][^\n;]*" found "${sass}")
  set(function "")
  foreach(f IN LISTS found)
    if(f MATCHES "^Function : (.+)$")
      set(function "${CMAKE_MATCH_1}")
    else()
      list(APPEND placeholder_lines "${function}: ${f}")
    endif()
  endforeach()
elseif(EXPECT STREQUAL "deleted")
  message(FATAL_ERROR "the deleted-wgmma canary needs -DCUOBJDUMP=<cuobjdump>")
endif()
list(LENGTH placeholder_lines placeholders)

if(EXPECT STREQUAL "clean" AND (serialized GREATER 0 OR refused OR placeholders GREATER 0))
  list(JOIN hits "\n" lines)
  list(JOIN refused "\n" refused_lines)
  list(JOIN placeholder_lines "\n" deleted_lines)
  message(FATAL_ERROR "ptxas in ${SOURCE}: ${serialized} lines of lost wgmma overlap:\n${lines}\n"
                      "spills no ALLOW_SPILLS entry allows:\n${refused_lines}\n"
                      "${placeholders} wgmmas deleted (a placeholder HGMMA where each was: its result was never "
                      "read):\n${deleted_lines}")
elseif(EXPECT STREQUAL "deleted" AND placeholders EQUAL 0)
  message(FATAL_ERROR "the SASS of the canary ${SOURCE} holds no placeholder HGMMA: the scan no longer sees how this "
                      "toolkit deletes a wgmma, so a clean scan of the chapters proves nothing")
elseif(EXPECT STREQUAL "serialized" AND serialized EQUAL 0)
  message(FATAL_ERROR "ptxas reported no serialized wgmma for the canary ${SOURCE}: the scan no longer sees the "
                      "messages this toolkit prints, so a clean scan of the chapters proves nothing")
elseif(EXPECT STREQUAL "spills" AND spills EQUAL 0)
  message(FATAL_ERROR "the scan found no spill in the canary ${SOURCE}: it no longer reads ptxas's resource lines, so "
                      "a clean scan of the chapters proves nothing")
endif()
set(sass_note "not looked for: no cuobjdump")
if(CUOBJDUMP)
  set(sass_note "${placeholders}")
endif()
message(STATUS "${SOURCE}: ${kernels} functions, ${spills} spilling, ${serialized} wgmma serialization lines, "
               "deleted wgmmas ${sass_note} (expected: ${EXPECT})")
foreach(s IN LISTS spilling)
  message(STATUS "  spills: ${s}")
endforeach()
