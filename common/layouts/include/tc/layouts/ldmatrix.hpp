// The lane mappings of ldmatrix.sync.aligned.m8n8{.x1,.x2,.x4}{.trans}.shared.b16, and the addressing that makes one
// ldmatrix.x4 deliver a whole m16n8k16 fragment.
//
// ldmatrix has two lane maps, and they are different lanes:
//   address  (lane 32) -> (matrix num, row 8)           lane l supplies the shared address of row l % 8 of matrix
//                                                        l / 8, 16 bytes (8 halves); lanes >= 8 * num are ignored
//   received (lane 32, elem 2 * num) -> (matrix num, row 8, col 8)
//            register r of every lane is matrix r; without .trans lane l receives row g, columns 2t and 2t + 1 of it
//            (g = groupID = l >> 2, t = threadID_in_group = l % 4: tc/layouts/lane_ids.hpp), the same place an
//            m16n8k16 fragment puts its pairs; with .trans it receives rows 2t and 2t + 1 of column g, i.e. the
//            matrix read as its transpose.
// A "source" function (lane 32) -> (line, offset) says where in a shared tile each lane points: the line (a row of
// A, a column of a K-contiguous B, a row of an N-contiguous B) and the offset along it where its 8 halves start.
// ldmatrix_element_source composes the two maps with a source, and the host tests prove that the three sources below
// make ldmatrix.x4 (and .x4.trans) deliver exactly mma_m16n8k16_{a,b}_coord (common/tests/test_ldmatrix_layouts.cpp).
// Units: lanes 0..31; matrices 0..num-1; rows, columns, lines and offsets in 16-bit elements.
// Preconditions: 0 <= lane < 32; 0 <= elem < 2 * num.
// Source: PTX ISA, section 9.7.14.5.15 "Warp-level matrix load instruction: ldmatrix" (the thread-to-row table and
// the fragment figure "ldmatrix fragment layout for one 8x8 matrix"); 9.7.14.5.8 for the m16n8k16 fragments.
#pragma once

#include "tc/layouts/lane_ids.hpp"
#include "tc/layouts/mma_m16n8k16.hpp"

#include <cuda_runtime_api.h>

namespace tc {

// One element an ldmatrix lane receives: which of the num matrices, and its row and column in that 8 x 8 matrix.
struct LdmatrixElement {
  int matrix = -1, row = -1, col = -1;
  __host__ __device__ constexpr bool operator==(const LdmatrixElement& o) const {
    return matrix == o.matrix && row == o.row && col == o.col;
  }
};

// One row an ldmatrix lane supplies the address of: which matrix, which of its 8 rows.
struct LdmatrixRow {
  int matrix = -1, row = -1;
  __host__ __device__ constexpr bool operator==(const LdmatrixRow& o) const {
    return matrix == o.matrix && row == o.row;
  }
};

// [doc:ldmatrix_maps]
// (lane 32) -> (matrix, row 8): the row whose 16-byte address lane `lane` supplies.
__host__ __device__ constexpr LdmatrixRow ldmatrix_address_row(int lane) { return {lane / 8, lane % 8}; }

// (lane 32, elem 2*num) -> (matrix num, row 8, col 8): what element `elem` (register elem / 2, half elem % 2) of lane
// `lane` holds after ldmatrix, without and with .trans.
__host__ __device__ constexpr LdmatrixElement ldmatrix_received(int lane, int elem, bool trans) {
  const int g = mma_group_id(lane), t = mma_thread_in_group(lane);
  const int matrix = elem / 2, pair = 2 * t + elem % 2;
  return trans ? LdmatrixElement{matrix, pair, g} : LdmatrixElement{matrix, g, pair};
}
// [/doc:ldmatrix_maps]

// [doc:sources]
// (lane 32) -> (line 16, offset 16): the A fragment of m16n8k16 from a tile with K along its lines (row-major A).
// Lanes 0..15 point at rows 0..15 at k = 0, lanes 16..31 at the same rows at k = 8, so matrices 0..3 are a0a1, a2a3,
// a4a5, a6a7: (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15).
__host__ __device__ constexpr Coord ldmatrix_x4_a_source(int lane) { return {lane % 16, lane / 16 * 8}; }

// (lane 32) -> (line 16, offset 16): two B fragments (n 0..7, then n 8..15) from a tile with K along its lines
// (column-major B, a line per column n). Matrices 0..3 are b0b1 and b2b3 of the first n8 tile, then of the second:
// (n 0-7, k 0-7), (n 0-7, k 8-15), (n 8-15, k 0-7), (n 8-15, k 8-15).
__host__ __device__ constexpr Coord ldmatrix_x4_b_source(int lane) {
  return {lane / 16 * 8 + lane % 8, lane / 8 % 2 * 8};
}

// (lane 32) -> (line 16, offset 16): the same two B fragments with .trans, from a tile with N along its lines
// (row-major B, a line per k): lane l points at k = l % 16 and n = 8 (l / 16); .trans turns each 8 x 8 (k, n) block
// into the (n, k) pairs the fragment wants.
__host__ __device__ constexpr Coord ldmatrix_x4_trans_b_source(int lane) { return {lane % 16, lane / 16 * 8}; }

// Where element `elem` that lane `lane` receives comes from, when every lane l points at source(l): {line, offset}.
template <typename Source>
__host__ __device__ constexpr Coord ldmatrix_element_source(Source source, int lane, int elem, bool trans) {
  const LdmatrixElement d = ldmatrix_received(lane, elem, trans);
  const Coord row_start = source(8 * d.matrix + d.row);  // from lane 8 matrix + row: ldmatrix_address_row inverted
  return {row_start.row, row_start.col + d.col};
}
// [/doc:sources]

// The three facts the GEMM kernels rely on, as constexpr checks (the host tests print where they fail):
// ldmatrix.x4 from ldmatrix_x4_a_source fills a0..a7 of mma_m16n8k16_a_coord; ldmatrix.x4 from ldmatrix_x4_b_source
// fills b0..b3 of the n8 tile e / 4; and .x4.trans from ldmatrix_x4_trans_b_source fills the same B elements.
constexpr bool ldmatrix_x4_gives_mma_a() {
  for (int lane = 0; lane < kWarpSize; ++lane)
    for (int e = 0; e < MmaM16N8K16::kElemsA; ++e) {
      const Coord got = ldmatrix_element_source(ldmatrix_x4_a_source, lane, e, false);
      if (got != mma_m16n8k16_a_coord(lane, e)) return false;  // (line, offset) = (row, k)
    }
  return true;
}
constexpr bool ldmatrix_x4_gives_mma_b(bool trans) {
  for (int lane = 0; lane < kWarpSize; ++lane)
    for (int e = 0; e < 2 * MmaM16N8K16::kElemsB; ++e) {
      const Coord want = mma_m16n8k16_b_coord(lane, e % MmaM16N8K16::kElemsB);  // (k, n) within the n8 tile
      const int n = want.col + MmaM16N8K16::N * (e / MmaM16N8K16::kElemsB);
      const Coord got = trans ? ldmatrix_element_source(ldmatrix_x4_trans_b_source, lane, e, true)
                              : ldmatrix_element_source(ldmatrix_x4_b_source, lane, e, false);
      if (got != (trans ? Coord{want.row, n} : Coord{n, want.row})) return false;
    }
  return true;
}

}  // namespace tc
