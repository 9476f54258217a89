// Chapter 06 -- what every step shares: the block tile, the warp's inner loop on ldmatrix.x4 + mma.sync.m16n8k16,
// and the epilogue. The steps (step1_*.cuh .. step3_*.cuh) differ only in how a K slice reaches shared memory.
//
// What the inner loop adds over chapter 05: a fragment is no longer 4 (A) or 2 (B) 32-bit LDS per lane at formula
// addresses, but one ldmatrix.x4 per A fragment and one per pair of B fragments, each lane pointing at one 16-byte row
// (tc/layouts/ldmatrix.hpp: ldmatrix_x4_a_source, ldmatrix_x4_b_source). The composition of that addressing with
// ldmatrix's own lane map is proven equal to the m16n8k16 fragment formulas on the host (static_asserts below and
// common/tests/test_ldmatrix_layouts.cpp) and on the GPU by every GEMM test.
// The shared tile's layout is a type (tc/layouts/smem_lines.hpp): tc::Padded<Skew> or tc::Swizzled.
#pragma once

#include "tc/layouts/ldmatrix.hpp"
#include "tc/layouts/mma_m16n8k16.hpp"
#include "tc/layouts/smem_lines.hpp"
#include "tc/ldmatrix.cuh"
#include "tc/mma_sync.cuh"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

// [doc:tile]
// A block tile: BlockM x BlockN of C per block, BlockK of K per shared-memory stage, Stages stages, WarpsM x WarpsN
// warps, the stage's line layout SmemTag (tc::Padded<Skew> or tc::Swizzled), and GroupN, the block order (below).
template <int BlockM_, int BlockN_, int BlockK_, int WarpsM_, int WarpsN_, int Stages_, typename SmemTag_,
          int GroupN_ = 1>
struct GemmTile {
  using Mma = tc::MmaM16N8K16;
  using SmemTag = SmemTag_;
  static constexpr int BlockM = BlockM_, BlockN = BlockN_, BlockK = BlockK_, Stages = Stages_, GroupN = GroupN_;
  static constexpr int WarpsM = WarpsM_, WarpsN = WarpsN_;
  static constexpr int kThreads = WarpsM * WarpsN * tc::kWarpSize;
  static constexpr int WarpM = BlockM / WarpsM, WarpN = BlockN / WarpsN;  // each warp's patch of C
  static constexpr int TilesM = WarpM / Mma::M, TilesN = WarpN / Mma::N;  // m16n8 accumulator tiles per warp
  // A stage: BlockM lines of A (its rows), then BlockN lines of B (its columns), BlockK halves of K along each.
  using Lines = tc::SmemLines<__half, BlockK, SmemTag>;
  static constexpr int kLines = BlockM + BlockN;
  static constexpr int kStageElems = kLines * Lines::kLineStride;
  static constexpr int kSmemBytes = Stages * kStageElems * int(sizeof(__half));
  static constexpr int kChunk = Lines::kChunk;  // 8 halves: one 16-byte copy, one ldmatrix row
  static constexpr int kChunksPerLine = BlockK / kChunk;
  static constexpr int kCopies = kLines * kChunksPerLine / kThreads;  // 16-byte copies per thread per stage
  static constexpr int kLinesPerCopy = kThreads / kChunksPerLine;     // lines one pass of all threads covers

  // Which line and chunk thread `thread` moves in its copy i: consecutive threads take consecutive chunks of a line,
  // so a warp reads whole BlockK-half runs of A's rows or B's columns from global memory.
  __host__ __device__ static constexpr tc::Coord copy_chunk(int thread, int i) {
    const int v = thread + i * kThreads;
    return {v / kChunksPerLine, v % kChunksPerLine};
  }
  // Which block tile (row, column, in tiles) block b of the 1-D grid computes. Blocks go in groups of GroupN block
  // columns, along N first inside a group, then down M. GroupN = 1 is plain column order (M first); a larger group
  // makes the blocks resident at one time a squarer patch of C, so they share more A and B panels in L2.
  __host__ __device__ static constexpr tc::Coord block_tile(int b, int tiles_m, int tiles_n) {
    const int per_group = GroupN * tiles_m, first_n = b / per_group * GroupN;
    const int size_n = tiles_n - first_n < GroupN ? tiles_n - first_n : GroupN;  // the last group may be narrower
    const int in_group = b % per_group;
    return {in_group / size_n, first_n + in_group % size_n};
  }
  // The n8 tile the jj-th mma.sync of row i of a K step multiplies: rows run left to right, then right to left
  // (serpentine). At each turn two consecutive mma.sync read the same B registers, which the operand reuse cache can
  // then serve instead of the register file, as it serves the A registers along a row.
  __host__ __device__ static constexpr int mma_column(int i, int jj) { return i % 2 == 0 ? jj : TilesN - 1 - jj; }
  // Where warp w's WarpM x WarpN patch starts inside the block tile: warps run down M first.
  __host__ __device__ static constexpr tc::Coord warp_origin(int warp) {
    return {warp % WarpsM * WarpM, warp / WarpsM * WarpN};
  }
  // The stage offset whose 16 bytes lane `lane` points ldmatrix.x4 at for the A fragment of rows row0..row0+15 at K
  // step k0, and for the two B fragments of columns col0..col0+15.
  __host__ __device__ static constexpr int a_ldmatrix_offset(int row0, int k0, int lane) {
    const tc::Coord s = tc::ldmatrix_x4_a_source(lane);
    return Lines::offset(row0 + s.row, k0 + s.col);
  }
  __host__ __device__ static constexpr int b_ldmatrix_offset(int col0, int k0, int lane) {
    const tc::Coord s = tc::ldmatrix_x4_b_source(lane);
    return Lines::offset(BlockM + col0 + s.row, k0 + s.col);
  }

  static_assert(BlockM % WarpsM == 0 && BlockN % WarpsN == 0, "warps must split the block tile evenly");
  static_assert(WarpM % Mma::M == 0 && BlockK % Mma::K == 0, "whole m16 tiles per warp, whole k16 steps per stage");
  static_assert(WarpN % (2 * Mma::N) == 0, "one ldmatrix.x4 loads the B fragments of two n8 tiles");
  static_assert(tc::ldmatrix_x4_gives_mma_a() && tc::ldmatrix_x4_gives_mma_b(false),
                "the ldmatrix sources must deliver exactly the m16n8k16 fragments");
  static_assert(kLines * kChunksPerLine % kThreads == 0, "every thread must issue the same number of copies");
  static_assert(kThreads % kChunksPerLine == 0 && BlockM % kLinesPerCopy == 0,
                "each pass of copies must cover whole lines and lie wholly in A or wholly in B");
  static_assert(kLinesPerCopy % Lines::kRepeatLines == 0, "copy i's shared offset must be copy 0's plus a constant");
  static_assert(Stages >= 2, "one stage computed while at least one more is filled");
  static_assert(GroupN >= 1, "a group holds at least one block column");
  static_assert(Mma::M % Lines::kRepeatLines == 0 && BlockM % Lines::kRepeatLines == 0,
                "fragment i's ldmatrix rows must be fragment 0's plus a constant (load_fragments)");
  static_assert(kSmemBytes <= 227 * 1024, "sm_80 and sm_90 give a block at most 227 KB of shared memory");
};
// [/doc:tile]

// [doc:warp_loop]
// The registers one K step of a warp needs: TilesM A fragments, and TilesN / 2 pairs of B fragments (b[j] holds n8
// tiles 2j in registers 0, 1 and 2j + 1 in registers 2, 3).
template <typename Tile>
struct WarpFragments {
  std::uint32_t a[Tile::TilesM][4], b[Tile::TilesN / 2][4];
};

// ldmatrix.x4 of the warp's fragments at K step k0 of `stage`. The lane's offsets for fragment 0 depend only on the
// warp, the lane and k0, so the compiler computes them once per kernel; fragment i lies i * 16 lines further, a
// constant, because the layout repeats every Lines::kRepeatLines lines.
template <typename Tile>
__device__ inline void load_fragments(const __half* stage, tc::Coord warp, int lane, int k0, WarpFragments<Tile>& f) {
  const __half* a = stage + Tile::a_ldmatrix_offset(warp.row, k0, lane);
  const __half* b = stage + Tile::b_ldmatrix_offset(warp.col, k0, lane);
#pragma unroll
  for (int i = 0; i < Tile::TilesM; ++i) tc::ldmatrix_x4(f.a[i], a + i * Tile::Mma::M * Tile::Lines::kLineStride);
#pragma unroll
  for (int j = 0; j < Tile::TilesN / 2; ++j)
    tc::ldmatrix_x4(f.b[j], b + j * 2 * Tile::Mma::N * Tile::Lines::kLineStride);
}

// TilesM x TilesN mma.sync of one K step into the fp32 accumulators, in Tile::mma_column's order.
template <typename Tile>
__device__ inline void mma_fragments(const WarpFragments<Tile>& f, float (&acc)[Tile::TilesM][Tile::TilesN][4]) {
#pragma unroll
  for (int i = 0; i < Tile::TilesM; ++i)
#pragma unroll
    for (int jj = 0; jj < Tile::TilesN; ++jj) {
      const int j = Tile::mma_column(i, jj);
      const std::uint32_t b[2] = {f.b[j / 2][j % 2 * 2], f.b[j / 2][j % 2 * 2 + 1]};
      tc::mma_m16n8k16_row_col_f32_f16_f16_f32(acc[i][j], f.a[i], b, acc[i][j]);
    }
}

// One warp's share of one stage (steps 1 and 2): for each K step of 16, the next step's fragments are loaded before
// this step's products are issued, so their latency hides behind them (two fragment buffers). `stage`: the stage's
// first element (shared memory); `warp`: the warp's origin in the block tile.
template <typename Tile>
__device__ inline void warp_mma_stage(const __half* stage, tc::Coord warp, int lane,
                                      float (&acc)[Tile::TilesM][Tile::TilesN][4]) {
  constexpr int kSteps = Tile::BlockK / Tile::Mma::K;
  WarpFragments<Tile> f[2];
  load_fragments<Tile>(stage, warp, lane, 0, f[0]);
#pragma unroll
  for (int ks = 0; ks < kSteps; ++ks) {
    if (ks + 1 < kSteps) load_fragments<Tile>(stage, warp, lane, (ks + 1) * Tile::Mma::K, f[(ks + 1) % 2]);
    mma_fragments<Tile>(f[ks % 2], acc);
  }
}
// [/doc:warp_loop]

// The epilogue: each lane owns c0..c3 of every m16n8 tile, at the C/D formula's places; C (column-major, ldc) at the
// block's (block_row, block_col) gets alpha * acc + beta * C, read only when beta != 0.
template <typename Tile>
__device__ inline void store_accumulators(const float (&acc)[Tile::TilesM][Tile::TilesN][4], float* C, int ldc,
                                          int block_row, int block_col, tc::Coord warp, int lane, float alpha,
                                          float beta) {
#pragma unroll
  for (int i = 0; i < Tile::TilesM; ++i)
#pragma unroll
    for (int j = 0; j < Tile::TilesN; ++j)
#pragma unroll
      for (int e = 0; e < tc::MmaM16N8K16::kElemsC; ++e) {
        const tc::Coord p = tc::mma_m16n8k16_c_coord(lane, e);
        float* c = C + (block_row + warp.row + i * Tile::Mma::M + p.row) +
                   static_cast<std::size_t>(block_col + warp.col + j * Tile::Mma::N + p.col) * ldc;
        *c = beta != 0.0f ? alpha * acc[i][j][e] + beta * *c : alpha * acc[i][j][e];
      }
}
