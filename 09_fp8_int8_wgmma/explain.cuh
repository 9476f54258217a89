// Chapter 09 -- what main.cu prints on the host before it looks for a GPU: what an 8-bit slice is, and the fp8 exact
// set's operand range at each size (tc/fp8_gemm_check.hpp), and with --svg the chapter's figures. Runs on any machine.
#pragma once

#include "tc/fp8_gemm_check.hpp"
#include "tc/gemm_driver.hpp"
#include "tc/wgmma_slice.cuh"
#include "tools/figures.hpp"

#include <cuda_fp16.h>

#include <cstdint>
#include <cstdio>

// (2) What the kernels read: one slice, and the exact set's range at each size.
inline void explain(const tc::RunOptions& o) {
  // The chapter's figures, host arithmetic (tools/figures.hpp), where --svg names a folder.
  if (!o.svg_dir.empty()) tc::write_figures(o.svg_dir, chapter_figures());
  std::printf("\n== an 8-bit slice (tc/wgmma_slice.cuh) ==\n"
              "one stage row: %d bytes = %d 8-bit values of K (chapter 08: %d 16-bit ones); a wgmma K step: %d "
              "values = 32 bytes of each row, %d steps a slice\n",
              tc::kSliceBytes, tc::kSliceElements<std::int8_t>, tc::kSliceElements<__half>,
              tc::kWgmmaStepK<std::int8_t>, tc::kSliceBytes / 32);
  std::printf("\n== the fp8 exact set (tc/fp8_gemm_check.hpp): every partial sum an integer of magnitude <= %d ==\n",
              tc::kFp8ExactSumLimit);
  for (const tc::GemmShape& s : o.sizes) {
    const tc::Fp8ExactRange r = tc::fp8_exact_range(s.k);
    std::printf("k = %-6d values in [-%d, %d]", s.k, r.r, r.r);
    if (r.q > 1) std::printf(", row i of A nonzero at K indices l = i (mod %d) only: at most %d terms a sum", r.q,
                             (s.k + r.q - 1) / r.q);
    std::printf("\n");
  }
}

