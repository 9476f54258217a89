// Chapter 08's epilogue layouts: where an output element goes in the shared staging chunk that a TMA store copies to
// C, and how stmatrix.trans puts a 16-bit accumulator there.
//
// The staging chunk (8 KB, one per buffer of a consumer warpgroup): the warpgroup's 64 rows of C by kCols columns,
// column-major like C, cut into boxes of kBoxRows rows (one 128-byte line per column) and stored in the 128-byte
// swizzle, so that a TMA store of box b with a SWIZZLE_128B map writes it out unswizzled:
//   (lane-free)  (row 64, col kCols) -> byte  box * kBoxBytes + swizzle_128B(col * 128 + (row % kBoxRows) * size)
// with box = row / kBoxRows. fp32 (size 4): 32-row boxes, 32 columns, 2 boxes; bf16 (size 2): 64-row boxes, 64
// columns, 1 box. The swizzle is what makes the stores conflict-free: a warp's fp32 store of one accumulator register
// covers 8 rows x 4 columns two apart, whose lines all start on bank 0; the XOR of the 16-byte chunk with the column
// spreads them over all 32 banks (the host tests count them).
//
// stmatrix.m8n8.x4.trans (tc/tma_store.cuh), for 16-bit outputs:
//   (lane 32, register 4, half 2) -> (matrix = register, stored row = 2 (lane % 4) + half, position = lane / 4)
//   (lane 32) -> the address of (matrix lane / 8, stored row lane % 8)
// A warp of the accumulator owns rows 16w..16w+15 (tc::wgmma_m64nNk16_d_coord); for the column groups j0 and j0 + 1
// (8 columns each) its registers make four 8 x 8 matrices: matrix j holds rows 16w + 8 (j % 2) .. + 7 and columns
// 8 (j0 + j / 2) .. + 7, element (r, c) in the lane and half the m16n8 layout gives it, from accumulator register
// 4 (j0 + j / 2) + 2 (j % 2) + half. Transposed, a stored row is one column of C and its 8 positions 8 consecutive
// rows: 16 contiguous bytes of the column-major chunk.
// Units: bytes, rows and columns of the chunk. Preconditions: 0 <= row < 64, 0 <= col < kCols; lane 0..31.
// Source: PTX ISA, "stmatrix" (9.7.14.5.16, fragment layout as ldmatrix's), "Tensor copy swizzling modes",
// "Register Fragments ... wgmma .m64nNk16 D".
#pragma once

#include "tc/layouts/lane_ids.hpp"  // tc::Coord
#include "tc/layouts/wgmma.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace tc {

// The staging chunk of one consumer warpgroup for outputs of `OutBytes` bytes (4: fp32, 2: bf16).
template <int OutBytes>
struct EpilogueChunk {
  static constexpr int kRows = 64;                          // one warpgroup's rows of the m64nNk16 accumulator
  static constexpr int kBytes = 8192;                       // 8 KB: two buffers per warpgroup fit beside the stages
  static constexpr int kBoxRows = 128 / OutBytes;           // one 128-byte swizzle line per column
  static constexpr int kCols = kBytes / (kRows * OutBytes);  // 32 (fp32) or 64 (bf16)
  static constexpr int kBoxes = kRows / kBoxRows;            // 2 (fp32) or 1 (bf16)
  static constexpr int kBoxBytes = kBytes / kBoxes;
  static_assert(OutBytes == 2 || OutBytes == 4, "fp32 or a 16-bit type");
  static_assert(kBoxRows * OutBytes == swizzle_span_bytes(Swizzle::B128), "a box line is one 128-byte swizzle row");
  static_assert(kBoxBytes % swizzle_repeat_bytes(Swizzle::B128) == 0, "every box starts on a swizzle atom");
  static_assert(kCols % 8 == 0, "whole 8-column accumulator groups");
};

// The byte offset of C element (row, col) of the chunk (see above).
template <int OutBytes>
__host__ __device__ constexpr std::uint32_t epilogue_offset(int row, int col) {
  using E = EpilogueChunk<OutBytes>;
  const std::uint32_t in_box = std::uint32_t(col) * 128u + std::uint32_t(row % E::kBoxRows) * OutBytes;
  return std::uint32_t(row / E::kBoxRows) * E::kBoxBytes + swizzle_address(Swizzle::B128, in_box);
}

// stmatrix.x4.trans: where element `half` of register `reg` of `lane` is stored.
struct StmatrixSlot {
  int matrix;      // 0..3
  int stored_row;  // 0..7: the row whose address lane 8 matrix + stored_row passes
  int position;    // 0..7: the 16-bit element within that row
};
__host__ __device__ constexpr StmatrixSlot stmatrix_x4_trans_slot(int lane, int reg, int half) {
  return {reg, 2 * (lane % 4) + half, lane / 4};
}

// The accumulator register of an m64nNk16 fragment that goes into element `half` of stmatrix register `reg`, for the
// column groups j0 and j0 + 1.
__host__ __device__ constexpr int stmatrix_accumulator_index(int j0, int reg, int half) {
  return 4 * (j0 + reg / 2) + 2 * (reg % 2) + half;
}

// The chunk element at the start of the 16-byte row that `lane` addresses, for warp `warp` and column groups j0 and
// j0 + 1 (j0 counted within the chunk): row 16 warp + 8 (matrix % 2), column 8 (j0 + matrix / 2) + stored row.
__host__ __device__ constexpr Coord stmatrix_row_start(int warp, int j0, int lane) {
  return {16 * warp + 8 * ((lane / 8) % 2), 8 * (j0 + lane / 16) + lane % 8};
}

}  // namespace tc
