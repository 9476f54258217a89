# The benchmark ladder (the `ladder` target; README, "The benchmark ladder"). Run as
#   cmake -DLIST=<build>/tc_chapters.cmake -DCSV=<csv> -DLOG=<log> -DCOMMAND=<how it was invoked> -P ladder.cmake
# It starts CSV afresh with its provenance ("# " lines: the command, the date, the GPU, its driver and SM clocks from
# nvidia-smi, and the CUDA runtime the binaries report), then runs every laddered chapter (tc_chapter_ladder) at
# 1024, 2048, 4096 and 8192 (a chapter whose arguments name their own sizes, as chapter 08's do, runs those), each
# appending its rows with --csv. Each chapter's full output goes to LOG. The rows
# gather in CSV.part, renamed to CSV only when every chapter has run: a chapter that fails (a mismatch, a CUDA error)
# or finds no GPU stops the ladder with an error and leaves the committed CSV as it was.
include("${LIST}")
set(sizes 1024 2048 4096 8192)
list(JOIN sizes "," size_list)

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
set(part "${CSV}.part")
file(WRITE "${part}" "# command: ${COMMAND}\n# date: ${now}\n"
                    "# gpu (nvidia-smi: name, driver, SM clock now, SM clock max, power limit): ${gpu}\n")
file(WRITE "${LOG}" "")

set(device "")
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
    message("ladder: ${name} ${shown}")
    execute_process(COMMAND "${exe}" ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    file(APPEND "${LOG}" "################ ${name} ${shown} (exit ${rc})\n${out}${err}\n")
    if(NOT rc EQUAL 0)
      file(REMOVE "${part}")
      string(STRIP "${out}${err}" all)
      string(REGEX MATCH "[^\n]*$" last "${all}")
      message(FATAL_ERROR "ladder: ${name} exited ${rc} (77: no suitable GPU); the CSV is unchanged. Its last line "
                          "(the whole output is in ${LOG}):\n${last}")
    endif()
    if(device STREQUAL "" AND out MATCHES "# device:  ([^\n]*)")
      set(device "${CMAKE_MATCH_1}")  # tc::print_run_header's line: GPU, SMs, memory, driver and runtime versions
    endif()
  endforeach()
endforeach()

# The device line goes last among the "# " lines: only the binaries know the CUDA runtime they run.
file(READ "${part}" rows)
string(REGEX REPLACE "^(# [^\n]*\n# [^\n]*\n# [^\n]*\n)" "\\1# device (as the chapters report it): ${device}\n"
       rows "${rows}")
file(WRITE "${part}" "${rows}")
file(RENAME "${part}" "${CSV}")
message("ladder: wrote ${CSV}")
