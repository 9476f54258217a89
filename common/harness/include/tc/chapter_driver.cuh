// tc::this_chapter(): the chapter being compiled, as tc::GemmDriver (tc/gemm_driver.hpp) and tc::SquareTool need it.
//
// Its name, number and minimum SM come from the chapter's generated chapter_config.hpp (tc_add_chapter in
// cmake/TcChapters.cmake), so a main.cu or a tool states only what is its own: a title, a summary, its kernels.
// Include it only from a chapter's targets (tc_chapter_executable, tc_chapter_tool, tc_chapter_tests): they alone
// see a chapter_config.hpp. The wrong-architecture guard is made here, in the including translation unit, so that it
// probes the chapter's own kernel image (tc/arch_guard.cuh says why that matters).
// Errors: none; the guard itself exits 5 when the binary has no code for the GPU.
// Source: CUDA C++ Programming Guide, "Binary Compatibility" (what the guard checks).
#pragma once

#include "chapter_config.hpp"  // generated per chapter: tc::chapter::kProgram, kNumber, kMinSm, kArchitectures
#include "tc/arch_guard.cuh"
#include "tc/gemm_driver.hpp"

namespace tc {

inline ChapterIdentity this_chapter() {
  return {chapter::kProgram, chapter::kNumber, chapter::kMinSm, kernel_image_guard(chapter::kArchitectures),
          chapter::kExactSm};
}

}  // namespace tc
