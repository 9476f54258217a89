# Choosing CMAKE_CUDA_ARCHITECTURES when the user did not.
#
# CMake's "native" would be ideal on a GPU machine, but it fails at configure time where there is no GPU, and this
# tutorial must also build on machines without one (CI, a reader's laptop). So:
#   - the user's -DCMAKE_CUDA_ARCHITECTURES=... or the CUDAARCHS environment variable always wins;
#   - else, if nvidia-smi reports GPUs, build for exactly those (e.g. "90" on an H200: SASS plus PTX);
#   - else build SASS for sm_80 and sm_90 and PTX for compute_90, which covers Ampere and Hopper and lets newer GPUs
#     JIT-compile the PTX.
function(tc_choose_default_cuda_architectures)
  if(DEFINED CMAKE_CUDA_ARCHITECTURES OR DEFINED ENV{CUDAARCHS})
    return()
  endif()
  set(archs "")
  find_program(TC_NVIDIA_SMI nvidia-smi)
  if(TC_NVIDIA_SMI)
    execute_process(
      COMMAND "${TC_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
      OUTPUT_VARIABLE caps RESULT_VARIABLE rc ERROR_QUIET TIMEOUT 20)
    if(rc EQUAL 0)
      string(REGEX MATCHALL "[0-9]+\\.[0-9]+" caps "${caps}")
      foreach(cap IN LISTS caps)
        string(REPLACE "." "" arch "${cap}")
        list(APPEND archs "${arch}")
      endforeach()
      list(REMOVE_DUPLICATES archs)
    endif()
  endif()
  if(archs)
    set(reason "the GPUs nvidia-smi reports")
  else()
    set(archs "80-real;90")
    set(reason "no GPU found; SASS for sm_80 and sm_90, PTX for compute_90")
  endif()
  message(STATUS "CUDA architectures: ${archs} (${reason}; override with -DCMAKE_CUDA_ARCHITECTURES=...)")
  set(CMAKE_CUDA_ARCHITECTURES "${archs}" CACHE STRING "GPU architectures to build for" FORCE)
endfunction()

# tc_architectures_at_least(<out-var> <min-sm>): the entries of CMAKE_CUDA_ARCHITECTURES whose SM number is >= min-sm,
# keeping their -real/-virtual suffixes ("80-real" -> 80, "90a" -> 90). CMake's special values are expanded first.
function(tc_architectures_at_least out min_sm)
  set(archs "${CMAKE_CUDA_ARCHITECTURES}")
  if(archs STREQUAL "all")
    set(archs "${CMAKE_CUDA_ARCHITECTURES_ALL}")
  elseif(archs STREQUAL "all-major")
    set(archs "${CMAKE_CUDA_ARCHITECTURES_ALL_MAJOR}")
  elseif(archs STREQUAL "native")
    set(archs "${CMAKE_CUDA_ARCHITECTURES_NATIVE}")
  elseif(NOT archs)
    set(archs "75")  # CMAKE_CUDA_ARCHITECTURES=OFF: nvcc's own default, sm_75 under CUDA 13
  endif()
  set(kept "")
  foreach(arch IN LISTS archs)
    string(REGEX MATCH "^[0-9]+" number "${arch}")
    if(number AND number GREATER_EQUAL min_sm)
      list(APPEND kept "${arch}")
    endif()
  endforeach()
  set(${out} "${kept}" PARENT_SCOPE)
endfunction()

# tc_arch_specific_architectures(<out-var> <sm>): the entries of CMAKE_CUDA_ARCHITECTURES for SM <sm> exactly, as the
# architecture-specific target that wgmma and setmaxnreg need ("90" -> "90a", "90-real" -> "90a-real", "90a" kept);
# a newer SM cannot run sm_90a code, so it is dropped. Empty when the list has no sm_<sm>.
function(tc_arch_specific_architectures out sm)
  tc_architectures_at_least(archs ${sm})
  set(specific "")
  foreach(arch IN LISTS archs)
    if(arch MATCHES "^${sm}(-real|-virtual)?$")
      list(APPEND specific "${sm}a${CMAKE_MATCH_1}")
    elseif(arch MATCHES "^${sm}a")
      list(APPEND specific "${arch}")
    endif()
  endforeach()
  set(${out} "${specific}" PARENT_SCOPE)
endfunction()
