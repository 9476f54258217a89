# Host test: doc_sync check must fail when a number in prose drifts from its results file, and when a measured figure
# is typed into prose without a value link. Works on a copy of the repository (build folders and .git left out),
# which must pass as it is, then breaks it three ways:
#   1. the value links of docs/06_ldmatrix_cp_async.md get another number (prose numbers edited by hand);
#   2. its results file changes under it (the number went stale): the quoted value, and any block quoting the line;
#   3. a measured figure, "123.4 TFLOP/s", is typed into a prose line of docs/02_wmma_tiled_gemm.md;
#   4. each other spelling the lint must catch, one at a time: other rate units and separators, a share of or margin
#      over a yardstick, a speed-up, times and clocks; in prose, in inline code, and in a fence without a marker;
#   5. a value link that selects a "# " provenance line of a results file;
#   6. a source that a results file measured changes (docs/results/README.md's staleness list is then out of date);
#   7. a results file without its "# sources:" record;
#   8. a reference-style value link's number edited, its definition removed, and its label defined twice;
#   9. a diff marker's block: empty, then written by update, then stale once a diffed file changes;
#  10. an output marker that keeps some rows of a section;
#  11. derived values (max, min, geomean, count over every matching line) once the file gains a row.
# Usage: cmake -DDOC_SYNC=<doc_sync> -DROOT=<repository> -DSCRATCH=<empty folder to use> -P check_doc_sync_catches_drift.cmake
file(REMOVE_RECURSE "${SCRATCH}")
file(MAKE_DIRECTORY "${SCRATCH}")
file(GLOB entries RELATIVE "${ROOT}" "${ROOT}/*")
foreach(entry IN LISTS entries)
  if(NOT entry MATCHES "^(build|\\.git|\\.deps)$")
    file(COPY "${ROOT}/${entry}" DESTINATION "${SCRATCH}")
  endif()
endforeach()

function(doc_sync_check expect what)
  execute_process(COMMAND "${DOC_SYNC}" check "${SCRATCH}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${what}: doc_sync check exit ${rc}\n${out}${err}")
  if(expect STREQUAL "pass" AND NOT rc EQUAL 0)
    message(FATAL_ERROR "${what}: doc_sync check must pass, it exited ${rc}")
  elseif(expect STREQUAL "fail" AND rc EQUAL 0)
    message(FATAL_ERROR "${what}: doc_sync check must fail, it passed")
  endif()
  set(doc_sync_output "${out}${err}" PARENT_SCOPE)
endfunction()

# doc_sync check must fail, and say why: its output must match `expected` (a regular expression).
function(doc_sync_must_fail what expected why)
  doc_sync_check(fail "${what}")
  if(NOT doc_sync_output MATCHES "${expected}")
    message(FATAL_ERROR "${what}: doc_sync failed, but not by naming ${why}")
  endif()
endfunction()

# A results file docs/results/<name> holding `measured`, whose record names one source, common/probe_source.txt, as it
# is: its manifest holds the 64-bit FNV-1a of "a probe source\n", 7a817f5603cc481f, and its digest is the hash of
# that hash and a newline. Editing the source makes the file stale.
function(write_current_results name measured)
  file(WRITE "${SCRATCH}/common/probe_source.txt" "a probe source\n")
  file(WRITE "${SCRATCH}/docs/results/${name}"
       "# commit:  probe\n# sources: 8671b7b5182a8efa over 1 files (sources/${name}.sources)\n\n${measured}")
  file(WRITE "${SCRATCH}/docs/results/sources/${name}.sources" "7a817f5603cc481f common/probe_source.txt\n")
endfunction()

doc_sync_check(pass "the copy as it is")

# 1. A value link's number edited by hand.
set(doc "${SCRATCH}/docs/06_ldmatrix_cp_async.md")
file(READ "${doc}" original)
string(REGEX MATCH "\\[[0-9.%]+\\]\\((results/[^ )]+) \"" link "${original}")
if(NOT link)
  message(FATAL_ERROR "docs/06_ldmatrix_cp_async.md has no value link to break")
endif()
set(results_file "${SCRATCH}/docs/${CMAKE_MATCH_1}")
string(REGEX REPLACE "\\[[0-9.%]+\\]\\((results/[^ )]+) \"" "[999.9](\\1 \"" edited "${original}")
file(WRITE "${doc}" "${edited}")
doc_sync_must_fail("a prose number edited" "value '999.9' differs" "the edited value")
file(WRITE "${doc}" "${original}")

# 2. The results file changes under the docs: every number in it gains a digit.
file(READ "${results_file}" results)
string(REGEX REPLACE "([0-9])\\.([0-9])" "\\17.\\2" stale "${results}")
file(WRITE "${results_file}" "${stale}")
doc_sync_check(fail "the results file changed")
file(WRITE "${results_file}" "${results}")

# 3. A measured figure typed into prose, outside any value link.
set(doc "${SCRATCH}/docs/02_wmma_tiled_gemm.md")
file(READ "${doc}" original)
string(REPLACE "## Measured results\n\n" "## Measured results\n\nThe block-tiled kernel once ran at 123.4 TFLOP/s.\n\n"
               typed "${original}")
file(WRITE "${doc}" "${typed}")
doc_sync_must_fail("a figure typed into prose" "'123.4 TFLOP/s' is a measured figure typed into prose"
                   "the typed figure")
file(WRITE "${doc}" "${original}")

# 4. Every spelling, each alone, in prose; then two of them in inline code and in a fence no marker precedes.
foreach(figure IN ITEMS "743.5 TFLOPS" "0.79 PFLOP/s" "786.4-TFLOP/s" "12 TOPS" "4254 GB/s" "beats cuBLAS by 3.2%"
                        "100.1 % of cuBLAS" "99.7% of cuBLASLt" "1.03x" "12.6 us" "0.1848 ms" "1455 MHz"
                        "3 microseconds")
  string(REPLACE "## Measured results\n\n" "## Measured results\n\nThe kernel once measured ${figure} here.\n\n"
                 typed "${original}")
  file(WRITE "${doc}" "${typed}")
  doc_sync_check(fail "'${figure}' typed into prose")
  string(REGEX MATCH "[0-9][0-9.]*" number "${figure}")
  if(NOT doc_sync_output MATCHES "'[^']*${number}[^']*' is a measured figure typed into prose")
    message(FATAL_ERROR "doc_sync failed, but not by naming '${figure}'")
  endif()
endforeach()
string(REPLACE "## Measured results\n\n" "## Measured results\n\nAn example: `ran at 743.5 TFLOP/s`.\n\n" typed
               "${original}")
file(WRITE "${doc}" "${typed}")
doc_sync_check(fail "a figure in inline code")
string(REPLACE "## Measured results\n\n" "## Measured results\n\n```text\nstep 4  0.1848 ms\n```\n\n" typed
               "${original}")
file(WRITE "${doc}" "${typed}")
doc_sync_must_fail("a figure in a fence without a marker"
                   "'0.1848 ms' is a measured figure typed into a fence without a marker"
                   "the figure in the unmarked fence")
file(WRITE "${doc}" "${original}")

# 5. A value link to a "# " line: the provenance of a results file, not a measurement.
set(results_link "results/02_wmma_tiled_gemm_h200_4096.txt")
string(REPLACE "## Measured results\n\n"
               "## Measured results\n\nDriver [13.0](${results_link} \"^# device: .* driver (\\S+),\").\n\n" typed
               "${original}")
file(WRITE "${doc}" "${typed}")
doc_sync_must_fail("a value link to a comment line" "selects a '#' comment line" "the comment line")
file(WRITE "${doc}" "${original}")

# 6. A source a saved run measured changes under it: the staleness list docs/results/README.md quotes no longer holds.
# A results file whose one source is current is added first (write_current_results; the real ones may all be stale
# already, and then one more change would not show). doc_sync update lists it as current; then the source is edited.
write_current_results(zz_probe.txt "measured\n")
execute_process(COMMAND "${DOC_SYNC}" update "${SCRATCH}" OUTPUT_QUIET RESULT_VARIABLE rc)
doc_sync_check(pass "a current results file added")
file(READ "${SCRATCH}/docs/results/README.md" listing)
if(NOT listing MATCHES "\n  zz_probe.txt \\(probe\\)\n")
  message(FATAL_ERROR "docs/results/README.md does not list zz_probe.txt as current:\n${listing}")
endif()
file(APPEND "${SCRATCH}/common/probe_source.txt" "edited after the run\n")
doc_sync_must_fail("a measured source edited" "staleness 'docs/results' differs from its source" "the staleness list")
file(REMOVE "${SCRATCH}/common/probe_source.txt" "${SCRATCH}/docs/results/zz_probe.txt"
     "${SCRATCH}/docs/results/sources/zz_probe.txt.sources")
execute_process(COMMAND "${DOC_SYNC}" update "${SCRATCH}" OUTPUT_QUIET RESULT_VARIABLE rc)

# 7. A results file that does not record its sources.
set(results_file "${SCRATCH}/docs/results/ladder.csv")
file(READ "${results_file}" results)
string(REGEX REPLACE "# sources: [^\n]*\n" "" unrecorded "${results}")
file(WRITE "${results_file}" "${unrecorded}")
doc_sync_must_fail("a results file without its record" "ladder.csv has no '# sources:' line"
                   "the unrecorded results file")
file(WRITE "${results_file}" "${results}")

# 8. Reference-style value links (a table's "[98.3][L01]" with "[L01]: results/... "pattern"" on a line of its own):
# the number edited by hand, and then the definition gone, which leaves the number with no source.
set(doc "${SCRATCH}/docs/08_warp_specialized_gemm.md")
file(READ "${doc}" original)
string(REGEX MATCH "\n\\[([A-Za-z][A-Za-z0-9_-]+)\\]: results/[^\n]*" definition "${original}")
if(NOT definition)
  message(FATAL_ERROR "docs/08_warp_specialized_gemm.md has no reference-style value link to break")
endif()
set(label "${CMAKE_MATCH_1}")
string(REGEX REPLACE "\\[[-+0-9.]+\\]\\[${label}\\]" "[999.9][${label}]" edited "${original}")
file(WRITE "${doc}" "${edited}")
doc_sync_must_fail("a referenced number edited" "value '999.9' differs" "the edited value")
string(REPLACE "${definition}" "" undefined "${original}")
file(WRITE "${doc}" "${undefined}")
doc_sync_must_fail("a reference without its definition" "links to \\[${label}\\], which no line" "the lost definition")
file(WRITE "${doc}" "${original}\n${definition}\n")
doc_sync_must_fail("a label defined twice" "the label \\[${label}\\] is defined twice" "the second definition")
file(WRITE "${doc}" "${original}")

# 9. A diff marker, a step shown as its change over the step before: the block must be the diff of the files as they
# are. An empty block fails; update writes the diff; then the newer file changes, and the block is stale again.
file(WRITE "${SCRATCH}/docs/zz_step1.txt" "a\nb\nc\n")
file(WRITE "${SCRATCH}/docs/zz_step2.txt" "a\nB\nc\n")
file(WRITE "${SCRATCH}/docs/zz_diff.md" "<!-- diff: docs/zz_step1.txt -> docs/zz_step2.txt -->\n```diff\n```\n")
doc_sync_must_fail("an empty diff block" "diff 'docs/zz_step1.txt -> docs/zz_step2.txt' differs" "the diff block")
execute_process(COMMAND "${DOC_SYNC}" update "${SCRATCH}" OUTPUT_QUIET)
file(READ "${SCRATCH}/docs/zz_diff.md" rendered)
if(NOT rendered MATCHES "@@ -1,3 \\+1,3 @@\n a\n-b\n\\+B\n c\n")
  message(FATAL_ERROR "doc_sync update did not write the diff of the two files:\n${rendered}")
endif()
doc_sync_check(pass "the diff block written by update")
file(WRITE "${SCRATCH}/docs/zz_diff.md" "<!-- diff: docs/zz_step1.txt -> docs/zz_step2.txt (context 0) -->\n```diff\n```\n")
execute_process(COMMAND "${DOC_SYNC}" update "${SCRATCH}" OUTPUT_QUIET)
file(READ "${SCRATCH}/docs/zz_diff.md" rendered)
if(NOT rendered MATCHES "@@ -2 \\+2 @@\n-b\n\\+B\n```")
  message(FATAL_ERROR "doc_sync update did not write the diff with no context lines:\n${rendered}")
endif()
file(WRITE "${SCRATCH}/docs/zz_diff.md" "<!-- diff: docs/zz_step1.txt -> docs/zz_step2.txt -->\n```diff\n```\n")
execute_process(COMMAND "${DOC_SYNC}" update "${SCRATCH}" OUTPUT_QUIET)
file(WRITE "${SCRATCH}/docs/zz_step2.txt" "a\nB\nC\n")
doc_sync_must_fail("a diffed file changed" "diff 'docs/zz_step1.txt -> docs/zz_step2.txt' differs" "the diff block")
file(REMOVE "${SCRATCH}/docs/zz_step1.txt" "${SCRATCH}/docs/zz_step2.txt" "${SCRATCH}/docs/zz_diff.md")

# 10. An output marker that keeps only some rows of a section: update writes the heading, the column header and the
# rows the pattern finds, and nothing else; then a kept row changes in the source, and the block is stale.
file(WRITE "${SCRATCH}/docs/zz_rows.txt" "== t ==\nsize kernel\n1 a 10\n1 b 20\n2 a 30\nfootnote\n")
file(WRITE "${SCRATCH}/docs/zz_rows.md" "<!-- output: docs/zz_rows.txt#t | rows: ^[0-9]+ a -->\n```text\n```\n")
execute_process(COMMAND "${DOC_SYNC}" update "${SCRATCH}" OUTPUT_QUIET)
file(READ "${SCRATCH}/docs/zz_rows.md" rendered)
if(NOT rendered MATCHES "```text\n== t ==\nsize kernel\n1 a 10\n2 a 30\n```")
  message(FATAL_ERROR "doc_sync update did not keep exactly the heading, the header and the matching rows:\n${rendered}")
endif()
doc_sync_check(pass "the rows block written by update")
file(WRITE "${SCRATCH}/docs/zz_rows.txt" "== t ==\nsize kernel\n1 a 11\n1 b 20\n2 a 30\nfootnote\n")
doc_sync_must_fail("a kept row changed" "zz_rows.txt#t [|] rows: .* differs from its source" "the rows block")
file(REMOVE "${SCRATCH}/docs/zz_rows.txt" "${SCRATCH}/docs/zz_rows.md")

# 11. Derived values: a sentence that claims the worst, the best, a geomean or a count must hold when the file gains a
# row. "max:", "min:", "geomean:" and "count:" aggregate every line their pattern matches. The results file records
# the probe source, as case 6's does, so that it is a results file like any other; update writes the values (which must
# be the aggregates of its three rows), then a new worst row makes the stated worst and count stale.
write_current_results(zz_ratios.txt "row a 1.000\nrow b 1.051\nrow c 1.016\n")
set(row "^row \\S+ (\\S+)")
file(WRITE "${SCRATCH}/docs/zz_derived.md"
     "At worst [0](results/zz_ratios.txt \"max: ${row}\"), at best [0](results/zz_ratios.txt \"min: ${row}\"), a "
     "geomean of [0](results/zz_ratios.txt \"geomean: ${row}\") over [0](results/zz_ratios.txt \"count: ${row}\") "
     "rows.\n")
execute_process(COMMAND "${DOC_SYNC}" update "${SCRATCH}" OUTPUT_QUIET)
file(READ "${SCRATCH}/docs/zz_derived.md" rendered)
if(NOT rendered MATCHES "^At worst \\[1\\.051\\].*at best \\[1\\.000\\].*geomean of \\[1\\.022\\].*over \\[3\\]")
  message(FATAL_ERROR "doc_sync update did not write the max, min, geomean and count of the rows:\n${rendered}")
endif()
doc_sync_check(pass "the derived values written by update")
file(APPEND "${SCRATCH}/docs/results/zz_ratios.txt" "row d 1.200\n")
set(stale_max "value '1\\.051' differs from results/zz_ratios\\.txt's '1\\.200'")
set(stale_count "value '3' differs from results/zz_ratios\\.txt's '4'")
doc_sync_must_fail("a new worst row" "${stale_max}.*${stale_count}" "the stale maximum and count")
file(REMOVE "${SCRATCH}/common/probe_source.txt" "${SCRATCH}/docs/results/zz_ratios.txt"
     "${SCRATCH}/docs/results/sources/zz_ratios.txt.sources" "${SCRATCH}/docs/zz_derived.md")
execute_process(COMMAND "${DOC_SYNC}" update "${SCRATCH}" OUTPUT_QUIET)

doc_sync_check(pass "the copy restored")
file(REMOVE_RECURSE "${SCRATCH}")
