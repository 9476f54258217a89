# check_generated.cmake: a committed generated file must equal what its generator writes now.
# Usage: cmake -DGENERATOR=<program> -DCOMMITTED=<file> -DOUTPUT=<scratch file> -DREGENERATE=<target>
#              -P check_generated.cmake
# Runs `GENERATOR OUTPUT` and compares OUTPUT with COMMITTED byte for byte. Errors (FATAL_ERROR, exit 1): the
# generator failed, or the files differ; the message names the first differing line and the target that rewrites
# COMMITTED.
foreach(var GENERATOR COMMITTED OUTPUT REGENERATE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_generated.cmake: -D${var}=... is required")
  endif()
endforeach()
execute_process(COMMAND "${GENERATOR}" "${OUTPUT}" RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "check_generated.cmake: ${GENERATOR} failed (${rc}): ${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${COMMITTED}" "${OUTPUT}" RESULT_VARIABLE differ)
if(differ)
  file(STRINGS "${COMMITTED}" committed_lines)
  file(STRINGS "${OUTPUT}" generated_lines)
  list(LENGTH committed_lines n_committed)
  list(LENGTH generated_lines n_generated)
  set(line 0)
  set(where "the lengths (${n_committed} and ${n_generated} lines)")
  foreach(a IN ZIP_LISTS committed_lines generated_lines)
    math(EXPR line "${line} + 1")
    if(NOT "${a_0}" STREQUAL "${a_1}")
      set(where "line ${line}")
      break()
    endif()
  endforeach()
  message(FATAL_ERROR "${COMMITTED} is not what its generator writes (first difference: ${where}); rebuild the "
                      "target ${REGENERATE} to rewrite it, and commit the result")
endif()
message(STATUS "${COMMITTED} matches its generator")
