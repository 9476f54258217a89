# sass_facts.cmake: the SASS facts the docs state, held to the binary as built: the HGMMA (wgmma) and WARPGROUP
# (wgmma.fence and wgmma.wait_group) instructions of each kernel of BINARY whose name contains PATTERN, as
# docs/tools/sass_excerpt.sh counts them, must be what the committed excerpt COMMITTED says, kernel by kernel in the
# same order. A kernel that lost or gained a wgmma (a dropped slice, a changed tile), or whose wgmmas ptxas serialized
# (a wait after each one: more WARPGROUP.DEPBAR), fails here, on a machine with no GPU: cuobjdump reads the sm_90a
# code from the binary. The kernels' names are not compared (the demangler may differ; binutils' c++filt writes 4 for (int)4).
# DOCTOR=1 (the test of this test): one committed count is changed first, and the script passes only if it then
# finds a mismatch.
# Usage: cmake -DEXCERPT=<sass_excerpt.sh> -DBINARY=<exe> -DPATTERN=<substring> -DCOMMITTED=<txt> -DTOOLS=<dir>
#              [-DDOCTOR=1] -P sass_facts.cmake
execute_process(COMMAND ${CMAKE_COMMAND} -E env "PATH=${TOOLS}:$ENV{PATH}" bash "${EXCERPT}" "${BINARY}" "${PATTERN}"
                        counts
                OUTPUT_VARIABLE fresh ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "sass_excerpt.sh failed (${rc}):\n${err}")
endif()
file(READ "${COMMITTED}" committed)

# Each kernel's HGMMA and WARPGROUP lines, joined: "kernel 1: 4 HGMMA.64x256x16.F32.BF16 2 WARPGROUP.DEPBAR.LE ...".
function(hgmma_per_kernel text out)
  string(REPLACE "\n" ";" lines "${text}")
  set(kernels "")
  set(current "")
  set(index 0)
  foreach(line IN LISTS lines)
    if(line MATCHES "^== sass: ")
      if(index GREATER 0)
        list(APPEND kernels "kernel ${index}:${current}")
      endif()
      math(EXPR index "${index} + 1")
      set(current "")
    elseif(line MATCHES "^ *([0-9]+) ((HGMMA|WARPGROUP)[^ ]*)")
      string(APPEND current " ${CMAKE_MATCH_1} ${CMAKE_MATCH_2}")
    endif()
  endforeach()
  if(index GREATER 0)
    list(APPEND kernels "kernel ${index}:${current}")
  endif()
  list(JOIN kernels " | " joined)
  set(${out} "${joined}" PARENT_SCOPE)
endfunction()

hgmma_per_kernel("${fresh}" got)
if(DOCTOR)
  string(REGEX REPLACE "\n( *)([0-9]+) HGMMA" "\n\\11\\2 HGMMA" committed "${committed}")  # one more digit: 4 -> 14
endif()
hgmma_per_kernel("${committed}" want)
if(got STREQUAL "")
  message(FATAL_ERROR "no kernel matching '${PATTERN}' with HGMMA or WARPGROUP instructions in ${BINARY}")
endif()
if(DOCTOR)
  if(got STREQUAL want)
    message(FATAL_ERROR "a changed committed count went unnoticed: the comparison proves nothing")
  endif()
  message("a changed committed count is caught, as it must be")
elseif(NOT got STREQUAL want)
  message(FATAL_ERROR "the HGMMA/WARPGROUP counts of ${BINARY} differ from ${COMMITTED} (remake it: "
                      "docs/results/README.md):\n"
                      "built:     ${got}\ncommitted: ${want}")
else()
  message("HGMMA and WARPGROUP counts as committed: ${got}")
endif()
