# The benchmark ladder (the `ladder` target; README, "The benchmark ladder"). Run as
#   cmake -DLIST=<build>/tc_chapters.cmake -DCSV=<csv> -DPART=<scratch csv> -DLOG=<log> -DCOMMAND=<how it was invoked>
#         -P ladder.cmake
# It starts PART afresh with its provenance ("# " lines: the command, the date, the GPU, its driver and SM clocks from
# nvidia-smi, and the CUDA runtime the binaries report), then runs every laddered chapter (tc_chapter_ladder) at
# 1024, 2048, 4096 and 8192, in one run or one run a size (@SIZE@; chapter 08 adds runs at 6144 and 12288), each
# appending its rows with --csv. Each chapter's full output goes to LOG. PART (default CSV.part; the `ladder` target
# keeps it in the build tree) replaces CSV only when every chapter has run: a chapter that fails (a mismatch, a CUDA
# error) or finds no GPU stops the ladder with an error and leaves the committed CSV as it was.
# Resuming: the whole ladder takes longer than some machines allow one command (the H200 host this project is measured
# on stops a command after 10 minutes). PART.done records each finished run and PART's length after it. With the environment variable
# TC_LADDER_RESUME set (to anything but 0), a ladder that was stopped part-way (killed, timed out) goes on: the runs
# PART.done lists are not repeated, rows an interrupted run left are cut off, and the interrupted run starts again.
# It resumes only on the GPU (name and driver) that began it; the CSV then says when it was resumed. The rows of every
# run (a chapter, or a chapter at one size) come from one uninterrupted run.
cmake_policy(VERSION 3.25)  # script mode sets no policies: IN_LIST, and ${} not @@ in quoted arguments
include("${LIST}")
set(sizes 1024 2048 4096 8192)
list(JOIN sizes "," size_list)
if(NOT PART)
  set(PART "${CSV}.part")
endif()
set(part "${PART}")
set(done_file "${PART}.done")

string(TIMESTAMP now "%Y-%m-%d %H:%M UTC" UTC)
set(gpu "nvidia-smi not found")
find_program(nvidia_smi nvidia-smi NO_CACHE)
if(nvidia_smi)
  execute_process(COMMAND ${nvidia_smi}
                          --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
                  OUTPUT_VARIABLE gpu OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    set(gpu "nvidia-smi failed (exit ${rc})")
  endif()
  string(REGEX REPLACE "\n.*" "" gpu "${gpu}")  # GPU 0 only: the chapters run there
endif()
string(REGEX MATCH "^[^,]*,[^,]*" gpu_identity "${gpu}")  # name and driver: what a resumed ladder must share

# The runs an earlier, interrupted ladder finished: "<PART's length in bytes after it>|<run>" lines in PART.done, and
# "device|<line>" and "resumed|<date>" lines.
set(resume OFF)
if(DEFINED ENV{TC_LADDER_RESUME} AND NOT "$ENV{TC_LADDER_RESUME}" STREQUAL "0")
  if(EXISTS "${part}" AND EXISTS "${done_file}")
    set(resume ON)
  else()
    message("ladder: TC_LADDER_RESUME is set, but no stopped ladder is in ${part}; starting afresh")
  endif()
endif()
set(done_runs "")
set(device "")
if(resume)
  file(STRINGS "${part}" started_gpu REGEX "^# gpu ")
  string(REGEX REPLACE "^# gpu \\([^)]*\\): " "" started_gpu "${started_gpu}")
  string(REGEX MATCH "^[^,]*,[^,]*" started_identity "${started_gpu}")
  if(NOT started_identity STREQUAL gpu_identity)
    message(FATAL_ERROR "ladder: the interrupted ladder in ${part} ran on \"${started_identity}\", this GPU is "
                        "\"${gpu_identity}\"; run it without TC_LADDER_RESUME to start afresh")
  endif()
  file(STRINGS "${done_file}" entries)
  set(length "")
  foreach(entry IN LISTS entries)
    if(entry MATCHES "^device\\|(.*)$")
      set(device "${CMAKE_MATCH_1}")
    elseif(entry MATCHES "^([0-9]+)\\|(.*)$")
      set(length "${CMAKE_MATCH_1}")
      list(APPEND done_runs "${CMAKE_MATCH_2}")
    endif()
  endforeach()
  # Cut off what an interrupted run appended after the last finished one.
  file(READ "${part}" rows LIMIT ${length})
  file(WRITE "${part}" "${rows}")
  file(APPEND "${done_file}" "resumed|${now}\n")
  message("ladder: resuming ${part} (started on ${started_gpu}); ${length} bytes of rows kept")
else()
  file(WRITE "${part}" "# command: ${COMMAND}\n# date: ${now}\n"
                      "# gpu (nvidia-smi: name, driver, SM clock now, SM clock max, power limit): ${gpu}\n")
  file(SIZE "${part}" length)
  file(WRITE "${done_file}" "${length}|the provenance lines\n")
  file(WRITE "${LOG}" "")
endif()

foreach(entry IN LISTS TC_LADDER)
  string(REPLACE "|" ";" entry "${entry}")
  list(POP_FRONT entry name exe)
  set(runs "")
  if(entry MATCHES "@SIZE@")
    foreach(size IN LISTS sizes)
      list(APPEND runs "${size}")
    endforeach()
  else()
    set(runs "all")
  endif()
  foreach(run IN LISTS runs)
    set(args "")
    foreach(arg IN LISTS entry)
      string(REPLACE "@SIZES@" "${size_list}" arg "${arg}")
      string(REPLACE "@SIZE@" "${run}" arg "${arg}")
      string(REPLACE "@CSV@" "${part}" arg "${arg}")
      list(APPEND args "${arg}")
    endforeach()
    list(JOIN args " " shown)
    if("${name} ${shown}" IN_LIST done_runs)
      message("ladder: ${name} ${shown} (finished before the resume)")
      continue()
    endif()
    message("ladder: ${name} ${shown}")
    execute_process(COMMAND "${exe}" ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    file(APPEND "${LOG}" "################ ${name} ${shown} (exit ${rc})\n${out}${err}\n")
    if(NOT rc EQUAL 0)
      file(REMOVE "${part}" "${done_file}")
      string(STRIP "${out}${err}" all)
      string(REGEX MATCH "[^\n]*$" last "${all}")
      message(FATAL_ERROR "ladder: ${name} exited ${rc} (77: no suitable GPU); the CSV is unchanged. Its last line "
                          "(the whole output is in ${LOG}):\n${last}")
    endif()
    if(device STREQUAL "" AND out MATCHES "# device:  ([^\n]*)")
      set(device "${CMAKE_MATCH_1}")  # tc::print_run_header's line: GPU, SMs, memory, driver and runtime versions
      file(APPEND "${done_file}" "device|${device}\n")
    endif()
    file(SIZE "${part}" length)
    file(APPEND "${done_file}" "${length}|${name} ${shown}\n")
  endforeach()
endforeach()

# The device line goes last among the "# " lines: only the binaries know the CUDA runtime they run. A resumed ladder
# says when it was resumed.
file(STRINGS "${done_file}" resumed REGEX "^resumed\\|")
list(TRANSFORM resumed REPLACE "^resumed\\|" "")
set(extra "# device (as the chapters report it): ${device}\n")
if(resumed)
  list(JOIN resumed ", " resumed)
  string(APPEND extra "# resumed (stopped part-way, then continued; the rows of each chapter, or of each size of a "
                      "chapter run one size at a time, are from one uninterrupted run of it): ${resumed}\n")
endif()
file(READ "${part}" rows)
string(REGEX REPLACE "^(# [^\n]*\n# [^\n]*\n# [^\n]*\n)" "\\1${extra}" rows "${rows}")
file(WRITE "${CSV}" "${rows}")
file(REMOVE "${part}" "${done_file}")
message("ladder: wrote ${CSV}")
