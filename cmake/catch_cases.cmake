# tc_list_catch_cases(<exe> <spec> <out> <rc>): the names of the test cases of Catch2 executable <exe> that match the
# test spec <spec> ("" for all), as its own output lists them, one a line, in <out>; the listing's exit code in <rc>
# (Catch2 2 exits with the count of cases listed, Catch2 3 with 0; negative: it could not run). CATCH2_MAJOR (2 or 3)
# picks the flags. Included by the ctest and build helpers that read a binary's cases.
function(tc_list_catch_cases exe spec out rc)
  if(CATCH2_MAJOR EQUAL 2)  # ${spec} unquoted: no argument at all where it is empty
    execute_process(COMMAND "${exe}" ${spec} --list-test-names-only RESULT_VARIABLE code OUTPUT_VARIABLE names
                    ERROR_VARIABLE err)
  else()
    execute_process(COMMAND "${exe}" ${spec} --list-tests --verbosity quiet RESULT_VARIABLE code
                    OUTPUT_VARIABLE names ERROR_VARIABLE err)
  endif()
  if(NOT "${err}" STREQUAL "" AND code EQUAL 0)
    set(code -1)  # a message on stderr is no listing
  endif()
  set(${out} "${names}" PARENT_SCOPE)
  set(${rc} "${code}" PARENT_SCOPE)
endfunction()
