// The chapter's lane diagrams: for each m16n8k16 operand, the lane and register element that hold every tile element,
// drawn from the same formulas the kernels use (tc/layouts/mma_m16n8k16.hpp), so a layout bug shows in a picture.
// docs/figures/05_*.svg are this function's output, written by 05_lane_figures; a host test fails when the committed
// files differ from it. Host code; no GPU. Errors: none.
#pragma once

#include "tc/layout_maps.hpp"
#include "tc/layouts/mma_m16n8k16.hpp"
#include "tc/main.hpp"  // tc::Figure

#include <string>
#include <vector>

inline std::vector<tc::Figure> mma_lane_figures() {
  using tc::MmaOperand;
  return {
      {"05_mma_m16n8k16_a.svg", tc::mma_m16n8k16_map(MmaOperand::A)
                                    .to_svg("m16n8k16 A (16x16, .row, f16/bf16): lane T and element a_i", "a")},
      {"05_mma_m16n8k16_b.svg", tc::mma_m16n8k16_map(MmaOperand::B)
                                    .to_svg("m16n8k16 B (16x8, .col, f16/bf16): lane T and element b_i", "b")},
      {"05_mma_m16n8k16_c.svg", tc::mma_m16n8k16_map(MmaOperand::C)
                                    .to_svg("m16n8k16 C/D (16x8, f32 or f16): lane T and element c_i", "c")},
  };
}
