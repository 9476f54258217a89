# Host test of cmake/ladder.cmake's resume (TC_LADDER_RESUME): three stand-in chapters (fake_ladder_chapter.sh) on a
# stand-in nvidia-smi. The second is killed part-way, as a time limit would; then
#   - a resume on another GPU must be refused and write no CSV;
#   - a resume on the same GPU must skip the finished chapter, drop the killed one's partial row, rerun it and the
#     rest, and write a CSV whose rows appear once each, with the header once and a "# resumed" line;
#   - a run without TC_LADDER_RESUME must start afresh and run every chapter again.
# Usage: cmake -DLADDER=<ladder.cmake> -DFAKE=<fake_ladder_chapter.sh> -DSCRATCH=<empty folder> -P check_ladder_resume.cmake
cmake_policy(VERSION 3.25)
file(REMOVE_RECURSE "${SCRATCH}")
file(MAKE_DIRECTORY "${SCRATCH}/gpu_a" "${SCRATCH}/gpu_b")
foreach(gpu IN ITEMS a b)
  file(WRITE "${SCRATCH}/gpu_${gpu}/nvidia-smi" "#!/bin/sh\necho 'FAKE GPU ${gpu}, 1.0, 100 MHz, 200 MHz, 300.00 W'\n")
  file(CHMOD "${SCRATCH}/gpu_${gpu}/nvidia-smi" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
endforeach()
set(list_file "${SCRATCH}/tc_chapters.cmake")
file(WRITE "${list_file}" "set(TC_LADDER)\n")
foreach(chapter IN ITEMS 02 03 04)
  file(APPEND "${list_file}" "list(APPEND TC_LADDER \"${chapter}_fake|${FAKE}|${chapter}|--csv|@CSV@\")\n")
endforeach()
set(csv "${SCRATCH}/ladder.csv")
set(part "${SCRATCH}/build/ladder.csv.part")
file(MAKE_DIRECTORY "${SCRATCH}/build")

# ladder(<gpu a|b> <resume 0|1> <chapter to kill or "">): runs ladder.cmake; sets rc and output.
function(ladder gpu resume kill)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env "PATH=${SCRATCH}/gpu_${gpu}:$ENV{PATH}" "TC_LADDER_RESUME=${resume}"
                          "FAKE_LADDER_KILL=${kill}"
                          ${CMAKE_COMMAND} -DLIST=${list_file} -DCSV=${csv} -DPART=${part} -DLOG=${SCRATCH}/log.txt
                          "-DCOMMAND=the resume test" -P ${LADDER}
                  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("---- gpu ${gpu}, TC_LADDER_RESUME=${resume}, kill '${kill}': exit ${result}\n${out}${err}")
  set(rc "${result}" PARENT_SCOPE)
  set(output "${out}${err}" PARENT_SCOPE)
endfunction()
# require(<what> <condition>...): fails the test with <what> unless the if() condition holds.
macro(require what)
  if(NOT (${ARGN}))
    message(FATAL_ERROR "ladder resume: ${what}")
  endif()
endmacro()
function(count_lines file regex var)
  file(STRINGS "${file}" lines REGEX "${regex}")
  list(LENGTH lines n)
  set(${var} ${n} PARENT_SCOPE)
endfunction()

# 1. Chapter 03 is killed after 02 finished: no CSV; the scratch file holds 02's rows and 03's partial one.
ladder(a 0 03)
set(killed FALSE)
if(NOT rc EQUAL 0)
  set(killed TRUE)
endif()
require("the killed ladder exited 0" killed)
require("a killed ladder wrote the CSV" NOT EXISTS "${csv}")
count_lines("${part}" "PARTIAL" partial)
require("the killed chapter's partial row is not in the scratch file (the test itself is broken)" partial EQUAL 1)

# 2. Resuming on another GPU is refused, and writes nothing.
ladder(b 1 "")
set(refused FALSE)
string(REGEX REPLACE "[ \n]+" " " flat "${output}")  # CMake wraps an error message's lines anywhere
if(NOT rc EQUAL 0 AND flat MATCHES "ran on \"FAKE GPU a, 1.0\"")
  set(refused TRUE)
endif()
require("a resume on another GPU was not refused with the GPU named" refused)
require("a refused resume wrote the CSV" NOT EXISTS "${csv}")

# 3. Resuming on the same GPU: 02 is not rerun, 03's partial row goes, every row appears once.
ladder(a 1 "")
require("the resumed ladder failed" rc EQUAL 0)
set(skipped FALSE)
if(output MATCHES "02_fake 02 --csv [^\n]* \\(finished before the resume\\)")
  set(skipped TRUE)
endif()
require("the resumed ladder ran chapter 02 again" skipped)
require("the resumed ladder wrote no CSV" EXISTS "${csv}")
require("the scratch file is left behind" NOT EXISTS "${part}")
count_lines("${csv}" "PARTIAL" partial)
count_lines("${csv}" "^chapter,kernel," headers)
count_lines("${csv}" "^0[234],(one|two)," rows)
count_lines("${csv}" "^# resumed " resumed)
count_lines("${csv}" "^# device \\(as the chapters report it\\): FAKE GPU" device)
require("the killed run's partial row reached the CSV" partial EQUAL 0)
require("the CSV has ${headers} header lines, not 1" headers EQUAL 1)
require("the CSV has ${rows} rows, not 6 (two a chapter, once each)" rows EQUAL 6)
require("the CSV does not say it was resumed" resumed EQUAL 1)
require("the CSV lacks the device line" device EQUAL 1)

# 4. Without TC_LADDER_RESUME a stopped ladder starts afresh: every chapter runs again, no "# resumed" line.
ladder(a 0 03)
ladder(a 0 "")
require("the fresh ladder failed" rc EQUAL 0)
set(fresh TRUE)
if(output MATCHES "finished before the resume")
  set(fresh FALSE)
endif()
require("a ladder without TC_LADDER_RESUME skipped a chapter" fresh)
count_lines("${csv}" "^# resumed " resumed)
count_lines("${csv}" "^0[234],(one|two)," rows)
require("the fresh ladder's CSV: ${rows} rows, ${resumed} resumed lines" resumed EQUAL 0 AND rows EQUAL 6)
message("ladder resume: every case as it must be")
