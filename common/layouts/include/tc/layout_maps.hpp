// The layout functions of tc/layouts/ drawn as LaneMaps (tc/lane_map.hpp): what the GPU probes are compared with,
// what the chapters print and what the figures draw. Host code; the layout functions themselves stay free of LaneMap
// so that kernels include only them.
// (lane 32, slot S) -> (row, col) for each map below; shapes as each says. Errors: none (the maps are total).
// Source: PTX ISA, "Matrix Fragments for mma.m16n8k16", "ldmatrix" and wgmma's "Register Fragments" (through the
// layout functions).
#pragma once

#include "tc/lane_map.hpp"
#include "tc/layouts/ldmatrix.hpp"
#include "tc/layouts/mma_m16n8k16.hpp"
#include "tc/layouts/wgmma.hpp"

namespace tc {

// The three layouts as LaneMaps, for tests, printing and the figures (LaneMap::to_svg).
enum class MmaOperand { A, B, C };

inline LaneMap mma_m16n8k16_map(MmaOperand operand) {
  using S = MmaM16N8K16;
  const int rows = operand == MmaOperand::B ? S::K : S::M;
  const int cols = operand == MmaOperand::A ? S::K : S::N;
  const int elems = operand == MmaOperand::A ? S::kElemsA : S::kElemsC;  // kElemsB == kElemsC
  LaneMap map(rows, cols, elems);
  for (int lane = 0; lane < kWarpSize; ++lane) {
    for (int i = 0; i < elems; ++i) {
      map.at(lane, i) = operand == MmaOperand::A   ? mma_m16n8k16_a_coord(lane, i)
                        : operand == MmaOperand::B ? mma_m16n8k16_b_coord(lane, i)
                                                   : mma_m16n8k16_c_coord(lane, i);
    }
  }
  return map;
}

// The num matrices stacked top to bottom (matrix i is rows 8i..8i+7 of an (8 num) x 8 tile), each lane holding 2 num
// elements: the map the GPU probe measures and the figures draw.
inline LaneMap ldmatrix_map(int num, bool trans) {
  LaneMap map(8 * num, 8, 2 * num);
  for (int lane = 0; lane < kWarpSize; ++lane)
    for (int e = 0; e < 2 * num; ++e) {
      const LdmatrixElement d = ldmatrix_received(lane, e, trans);
      map.at(lane, e) = {8 * d.matrix + d.row, d.col};
    }
  return map;
}

// Warp `warp` (0..3) of a warpgroup's m64nNk16 accumulator: its 16 rows (16 warp .. 16 warp + 15, drawn as rows 0..15)
// by n columns, each lane holding n / 2 fp32 registers (tc::wgmma_m64nNk16_d_coord). Precondition: n a multiple of 8.
inline LaneMap wgmma_d_map(int n, int warp) {
  LaneMap map(16, n, n / 2);
  for (int lane = 0; lane < kWarpSize; ++lane)
    for (int i = 0; i < n / 2; ++i) {
      const Coord c = wgmma_m64nNk16_d_coord(warp, lane, i);
      map.at(lane, i) = {c.row - 16 * warp, c.col};
    }
  return map;
}

// Warp `warp` (0..3) of a warpgroup's register A operand (the RS form of m64nNk16, 16-bit) over k_steps K steps side
// by side: its 16 rows by 16 k_steps columns, each lane holding 8 elements a step, slot 8t + i being element i of
// step t (tc::wgmma_m64nNk16_a_coord, shifted 16t columns). For k_steps = n / 16 it equals wgmma_d_map(n, warp), slot
// for slot: the identity FlashAttention-3's P V rests on (tc::wgmma_accumulator_is_next_a).
inline LaneMap wgmma_a_registers_map(int k_steps, int warp) {
  LaneMap map(16, 16 * k_steps, 8 * k_steps);
  for (int lane = 0; lane < kWarpSize; ++lane)
    for (int t = 0; t < k_steps; ++t)
      for (int i = 0; i < 8; ++i) {
        const Coord c = wgmma_m64nNk16_a_coord(warp, lane, i);
        map.at(lane, 8 * t + i) = {c.row - 16 * warp, c.col + 16 * t};
      }
  return map;
}

}  // namespace tc
