// Chapter 11's figures, drawn from the layout functions (no GPU):
//   11_s_accumulator.svg  which lane and register hold each element of S (64 x 32 of an m64n32k16 accumulator, fp32),
//                         warp 0's rows (tc::wgmma_d_map)
//   11_p_operand.svg      which lane and element hold each element of P as the A operand of P V's next wgmmas (two
//                         k16 steps from registers, 16-bit; tc::wgmma_a_registers_map): the same cells, slot for slot
// docs/figures/11_*.svg are this function's output, written by 11_figures; a host test fails when the committed
// files differ from it, and another when the two maps differ. Host code. Errors: none.
#pragma once

#include "tc/layout_maps.hpp"
#include "tc/main.hpp"  // tc::Figure

#include <vector>

inline std::vector<tc::Figure> chapter_figures() {
  return {
      {"11_s_accumulator.svg",
       tc::wgmma_d_map(32, 0).to_svg("S = Q K^T, an m64n32k16 fp32 accumulator, warp 0 (rows 0-15): lane T holds "
                                     "register s[i]; warp w holds rows 16w..16w+15 alike",
                                     "s")},
      {"11_p_operand.svg",
       tc::wgmma_a_registers_map(2, 0).to_svg("P as the A operand of P V's wgmmas (two k16 steps), warp 0: lane T "
                                              "holds element p[8t + i] of step t; the same cells as S's s[8t + i]",
                                              "p")},
  };
}
