// The fragment layouts of mma.sync.aligned.m16n8k16 with .f16/.bf16 inputs: which tile element each lane's i-th
// fragment element is. Unlike WMMA's (chapter 01), these layouts are part of the instruction's specification.
//
//   A   (lane 32, elem 8) -> (row 16, col 16)   M x K, ".row": elements a0..a7 in 4 registers
//   B   (lane 32, elem 4) -> (row 16, col 8)    K x N, ".col": elements b0..b3 in 2 registers
//   C/D (lane 32, elem 4) -> (row 16, col 8)    M x N, c0..c3: 4 .f32 registers, or 2 .f16x2 registers
// With g = groupID = lane >> 2 and t = threadID_in_group = lane % 4 (tc/layouts/lane_ids.hpp):
//   A:   row = g + 8 * ((i / 2) % 2)    col = 2t + i % 2 + 8 * (i / 4)
//   B:   row = 2t + i % 2 + 8 * (i / 2) col = g
//   C/D: row = g + 8 * (i / 2)          col = 2t + i % 2          (the same for .f32 and .f16 accumulators)
// So each quad of 4 lanes owns one row of A and of C (and one column of B), its lanes side by side along K (A, B) or
// N (C), and the second half of the elements repeats that pattern 8 rows further down (A, C) or 8 K further on (B).
//
// Register packing (PTX ISA, "Packed Data Types" and the fragment tables' "Elements (low to high)"): a 16-bit
// element pair (2j, 2j + 1) shares 32-bit register j, element 2j in bits 0..15, element 2j + 1 in bits 16..31. A
// .f32 accumulator element i is register i. Both elements of a 16-bit register are adjacent along the dimension that
// is contiguous in the ".row"/".col" sense: K for A and B, N for C. So one 32-bit load from a K-contiguous
// (row-major A, column-major B) tile fills a register, which is what chapter 05's GEMM relies on
// (mma_m16n8k16_pairs_are_adjacent, tested in common/tests/test_mma_layouts.cpp).
// Units: rows and columns of the tile; lanes 0..31. Preconditions: 0 <= lane < 32, 0 <= i < the element count; out
// of range gives a coordinate outside the tile, which the host tests reject.
// Source: PTX ISA, section 9.7.14.5.8 "Matrix Fragments for mma.m16n8k16 with floating point type" (figures
// "MMA .m16n8k16 fragment layout for matrix A / matrix B / accumulator matrix C/D with .f16/.bf16 type").
#pragma once

#include "tc/layouts/lane_ids.hpp"

#include <cuda_runtime_api.h>

namespace tc {

// The shape and per-lane element counts of m16n8k16 (32 lanes hold 16*16, 16*8 and 16*8 elements).
struct MmaM16N8K16 {
  static constexpr int M = 16, N = 8, K = 16;
  static constexpr int kElemsA = M * K / kWarpSize;  // 8: a0..a7
  static constexpr int kElemsB = K * N / kWarpSize;  // 4: b0..b3
  static constexpr int kElemsC = M * N / kWarpSize;  // 4: c0..c3
  static constexpr int kRegsA = kElemsA / 2;         // 32-bit registers of packed 16-bit pairs
  static constexpr int kRegsB = kElemsB / 2;
};

// [doc:formulas]
// (lane 32, elem 8) -> (row 16, col 16): A, M x K.
__host__ __device__ constexpr Coord mma_m16n8k16_a_coord(int lane, int i) {
  const int g = mma_group_id(lane), t = mma_thread_in_group(lane);
  return {g + 8 * ((i / 2) % 2), 2 * t + i % 2 + 8 * (i / 4)};
}

// (lane 32, elem 4) -> (row 16, col 8): B, K x N.
__host__ __device__ constexpr Coord mma_m16n8k16_b_coord(int lane, int i) {
  const int g = mma_group_id(lane), t = mma_thread_in_group(lane);
  return {2 * t + i % 2 + 8 * (i / 2), g};
}

// (lane 32, elem 4) -> (row 16, col 8): C and D, M x N, for .f32 and .f16 accumulators alike.
__host__ __device__ constexpr Coord mma_m16n8k16_c_coord(int lane, int i) {
  const int g = mma_group_id(lane), t = mma_thread_in_group(lane);
  return {g + 8 * (i / 2), 2 * t + i % 2};
}
// [/doc:formulas]

// True when, for every lane and register, the register's two 16-bit elements are neighbours along the contiguous
// dimension (K for A and B, N for C): the fact that lets one 32-bit load from a K-contiguous tile fill a register.
constexpr bool mma_m16n8k16_pairs_are_adjacent() {
  for (int lane = 0; lane < kWarpSize; ++lane) {
    for (int j = 0; j < MmaM16N8K16::kRegsA; ++j) {
      const Coord lo = mma_m16n8k16_a_coord(lane, 2 * j), hi = mma_m16n8k16_a_coord(lane, 2 * j + 1);
      if (hi.row != lo.row || hi.col != lo.col + 1 || lo.col % 2 != 0) return false;
    }
    for (int j = 0; j < MmaM16N8K16::kRegsB; ++j) {
      const Coord lo = mma_m16n8k16_b_coord(lane, 2 * j), hi = mma_m16n8k16_b_coord(lane, 2 * j + 1);
      if (hi.col != lo.col || hi.row != lo.row + 1 || lo.row % 2 != 0) return false;
    }
    for (int j = 0; j < MmaM16N8K16::kElemsC / 2; ++j) {
      const Coord lo = mma_m16n8k16_c_coord(lane, 2 * j), hi = mma_m16n8k16_c_coord(lane, 2 * j + 1);
      if (hi.row != lo.row || hi.col != lo.col + 1 || lo.col % 2 != 0) return false;
    }
  }
  return true;
}


}  // namespace tc
