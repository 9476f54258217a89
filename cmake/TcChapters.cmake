# Chapters: each is a standalone executable on top of tc::common, built only for the GPU architectures it supports.
#
# tc_add_chapter(<dir> MIN_SM <nn>)
#   Adds chapter <dir> if CMAKE_CUDA_ARCHITECTURES lists at least one architecture >= sm_<nn>; otherwise prints why the
#   chapter is skipped and goes on. Inside the chapter's CMakeLists.txt, TC_CHAPTER_ARCHITECTURES holds the kept
#   architectures and TC_CHAPTER_MIN_SM the minimum.
# tc_chapter_executable(<target> <sources>...)
#   The chapter's binary: built for TC_CHAPTER_ARCHITECTURES, told its minimum SM, and run by run_chapters in order.
# tc_chapter_tests(<target> <sources>...)
#   The chapter's Catch2 tests (see cmake/TcTesting.cmake), built for the same architectures.

set_property(GLOBAL PROPERTY TC_CHAPTER_RUNS "")
set_property(GLOBAL PROPERTY TC_CHAPTER_SKIPS "")

function(tc_add_chapter dir)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "MIN_SM" "")
  if(NOT arg_MIN_SM)
    message(FATAL_ERROR "tc_add_chapter(${dir}): MIN_SM is required")
  endif()
  tc_architectures_at_least(TC_CHAPTER_ARCHITECTURES ${arg_MIN_SM})
  if(NOT TC_CHAPTER_ARCHITECTURES)
    set(why "needs sm_${arg_MIN_SM} or newer; CMAKE_CUDA_ARCHITECTURES is \"${CMAKE_CUDA_ARCHITECTURES}\"")
    message(STATUS "Chapter ${dir}: SKIPPED (${why})")
    set_property(GLOBAL APPEND PROPERTY TC_CHAPTER_SKIPS "${dir}: ${why}")
    return()
  endif()
  set(TC_CHAPTER_MIN_SM ${arg_MIN_SM})
  message(STATUS "Chapter ${dir}: building for ${TC_CHAPTER_ARCHITECTURES} (minimum sm_${arg_MIN_SM})")
  add_subdirectory(${dir})
endfunction()

function(tc_chapter_executable target)
  add_executable(${target} ${ARGN})
  set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${TC_CHAPTER_ARCHITECTURES}")
  target_link_libraries(${target} PRIVATE tc::common)
  # The one place a chapter's minimum SM is stated: main.cu checks the GPU against it at run time.
  target_compile_definitions(${target} PRIVATE TC_CHAPTER_MIN_SM=${TC_CHAPTER_MIN_SM})
  set_property(GLOBAL APPEND PROPERTY TC_CHAPTER_RUNS "${target}")
endfunction()

function(tc_chapter_tests target)
  if(NOT TC_BUILD_TESTS)
    return()
  endif()
  tc_add_catch_tests(${target} ${ARGN})
  set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${TC_CHAPTER_ARCHITECTURES}")
  target_compile_definitions(${target} PRIVATE TC_CHAPTER_MIN_SM=${TC_CHAPTER_MIN_SM})
  target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
endfunction()

# run_chapters: builds every chapter, then runs them in teaching order on their default input (README command 1).
function(tc_finish_chapters)
  get_property(runs GLOBAL PROPERTY TC_CHAPTER_RUNS)
  get_property(skips GLOBAL PROPERTY TC_CHAPTER_SKIPS)
  set(content "set(TC_RUNS)\n")
  foreach(target IN LISTS runs)
    string(APPEND content "list(APPEND TC_RUNS \"${target}|$<TARGET_FILE:${target}>\")\n")
  endforeach()
  string(APPEND content "set(TC_SKIPS)\n")
  foreach(skip IN LISTS skips)
    string(APPEND content "list(APPEND TC_SKIPS \"${skip}\")\n")
  endforeach()
  file(GENERATE OUTPUT "${CMAKE_BINARY_DIR}/tc_chapters.cmake" CONTENT "${content}")
  add_custom_target(run_chapters
    COMMAND ${CMAKE_COMMAND} -DLIST=${CMAKE_BINARY_DIR}/tc_chapters.cmake -P ${PROJECT_SOURCE_DIR}/cmake/run_chapters.cmake
    DEPENDS ${runs}
    USES_TERMINAL  # stream each chapter's output as it runs instead of buffering it
    COMMENT "Running every chapter in order")
endfunction()
