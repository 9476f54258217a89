// Chapter 06 -- the block tile every step shares, and the four steps' tiles: host-compilable, so that the figure
// program (tools/figures.cpp) and the chapter's host sections read the same constexpr functions the kernels do.
//
// A tile is a type: GemmTile<BlockM, BlockN, BlockK, WarpsM, WarpsN, Stages, SmemTag, GroupN>. Its functions map a
// thread, warp, lane or block to the part of the problem it handles; all are constexpr and __host__ __device__, and
// its static_asserts state the contract of every kernel built on it.
// Shapes: BlockM x BlockN of C per block; a stage holds BlockM lines of A (rows, K along each) then BlockN lines of B
// (columns, K along each), BlockK halves per line, laid out by SmemTag (tc/layouts/smem_lines.hpp). Units: elements
// (halves) unless a name says bytes. Preconditions: as the static_asserts say. Errors: none (compile-time checks).
// Source: PTX ISA 9.7.14.5.8 (m16n8k16 fragments) and "ldmatrix"; CUDA C++ Programming Guide, "Shared Memory".
#pragma once

#include "tc/layouts/lane_ids.hpp"
#include "tc/layouts/ldmatrix.hpp"
#include "tc/layouts/mma_m16n8k16.hpp"
#include "tc/layouts/smem_lines.hpp"

#include <cuda_fp16.h>
#include <cuda_runtime_api.h>  // __host__ __device__ for host-only compilers too

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

// The steps' tiles, in the order the chapter takes them (each step's file says what its tile changes).
// [doc:step1_tile]
// Chapter 05's tile: 2 stages (one computed, one being refilled), lines of 32 + 8 halves (80 bytes, which
// common/tests/test_ldmatrix_layouts.cpp and the chapter's tests prove conflict-free for ldmatrix).
using Step1Tile = GemmTile<128, 128, 32, 2, 4, 2, tc::Padded<8>>;
// [/doc:step1_tile]

// [doc:step2_tile]
// Step 1's tile: only the copy mechanism differs.
using Step2Tile = GemmTile<128, 128, 32, 2, 4, 2, tc::Padded<8>>;
// [/doc:step2_tile]

// [doc:step3_tile]
// Step 2's block plan with 4 stages on the swizzled layout: 4 x 16 KB of shared memory.
using Step3Tile = GemmTile<128, 128, 32, 2, 4, 4, tc::Swizzled>;
// [/doc:step3_tile]

// [doc:step4_tile]
// Step 4: step 3's kernel with a tile from the top of the bounded sweep at 8192^3 on the H200, whose top rows lie
// within run-to-run spread of each other (docs/results/06_tile_sweep_h200*.csv): 128 x 256 of C per block, 8 warps
// of 64 x 64, 64-deep slices (128-byte lines), 4 stages (192 KB), blocks in groups of 8 block columns. Of the top
// rows it is the one whose reason holds on paper: with one block per SM, the H200's 132 resident blocks cover about
// 16.5 block rows by 8 block columns, a 2112 x 2048 patch of C: square, so it needs the fewest rows of A and columns
// of B from L2 at a time.
using Step4Tile = GemmTile<128, 256, 64, 2, 4, 4, tc::Swizzled, 8>;
// [/doc:step4_tile]
