// Chapter 05, step 2 -- a block-tiled GEMM on mma.sync.m16n8k16, fragments loaded by the ISA's formulas.
//
// What it adds over chapter 02's block-tiled kernel: the same plan (a 128 x 128 block tile, 8 warps of 64 x 32, a
// 32-deep K slice per shared-memory stage, two stages refilled through registers, one barrier per stage), but no
// WMMA. Each lane loads its own fragment registers from shared memory with plain 32-bit loads at the addresses the
// PTX ISA's lane formulas give (tc/layouts/mma_m16n8k16.hpp), issues mma.sync through the named wrapper, and writes
// its accumulator elements to C where the C/D formula says. Shared memory holds A's rows and B's columns with K
// along every line, which is what makes one 32-bit load fill one register: its two elements are K neighbours. The
// cost is instruction count -- a 64 x 32 warp tile takes 24 LDS.32 per K step of 16 where WMMA's loads take 6 LDSM
// (docs/05 counts them in the SASS) -- which is what ldmatrix (chapter 06) removes.
#pragma once

#include "tc/check.hpp"
#include "tc/gemm_args.hpp"
#include "tc/layouts/lane_ids.hpp"  // tc::Coord, tc::kWarpSize
#include "tc/layouts/mma_m16n8k16.hpp"
#include "tc/layouts/tags.hpp"
#include "tc/mma_sync.cuh"
#include "tc/padded_gemm.hpp"
#include "tc/tile_contract.hpp"
#include "tc/types.hpp"  // tc::F16F32

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

// [doc:tile]
// A block tile: BlockM x BlockN of C per block, BlockK of K per stage, WarpsM x WarpsN warps, Skew halves of padding
// after every shared-memory line.
template <int BlockM_, int BlockN_, int BlockK_, int WarpsM_, int WarpsN_, int Skew_>
struct MmaTile {
  using Mma = tc::MmaM16N8K16;
  static constexpr int BlockM = BlockM_, BlockN = BlockN_, BlockK = BlockK_, Skew = Skew_;
  static constexpr int WarpsM = WarpsM_, WarpsN = WarpsN_;
  static constexpr int kThreads = WarpsM * WarpsN * tc::kWarpSize;
  static constexpr int WarpM = BlockM / WarpsM, WarpN = BlockN / WarpsN;  // each warp's patch of C
  static constexpr int TilesM = WarpM / Mma::M, TilesN = WarpN / Mma::N;  // m16n8 accumulator tiles per warp
  // A stage is BlockM + BlockN lines of BlockK halves: A's rows, then B's columns, K along every line, kLd apart.
  static constexpr int kLines = BlockM + BlockN;
  static constexpr int kLd = BlockK + Skew;
  static constexpr int kStageHalves = kLines * kLd;
  static constexpr int kStages = 2;  // compute on one while the other is refilled
  static constexpr int kSmemBytes = kStages * kStageHalves * int(sizeof(__half));
  static constexpr int kChunk = 8;  // halves per 16-byte (uint4) global load and shared store
  static constexpr int kChunksPerLine = BlockK / kChunk;
  static constexpr int kCopies = kLines * kChunksPerLine / kThreads;  // uint4 moves per thread per stage

  // The element offset of K index k of line `line` within a stage.
  __host__ __device__ static constexpr int smem_offset(int line, int k) { return line * kLd + k; }
  // Where lane `lane` loads register j of an A fragment whose 16 rows start at line row0, at K step k0; and of a
  // B fragment whose 8 columns start at column col0 of B. Both are the register's first (low) element: the formulas
  // put its partner at the next K (tc::mma_m16n8k16_pairs_are_adjacent), so one 32-bit load takes both.
  __host__ __device__ static constexpr int a_register_offset(int row0, int k0, int lane, int j) {
    const tc::Coord p = tc::mma_m16n8k16_a_coord(lane, 2 * j);
    return smem_offset(row0 + p.row, k0 + p.col);
  }
  __host__ __device__ static constexpr int b_register_offset(int col0, int k0, int lane, int j) {
    const tc::Coord p = tc::mma_m16n8k16_b_coord(lane, 2 * j);
    return smem_offset(BlockM + col0 + p.col, k0 + p.row);
  }
  // Which line and 16-byte chunk thread `thread` moves in its copy i: consecutive threads take consecutive chunks of
  // a line, so a warp reads whole 64-byte K runs of A's rows or B's columns from global memory.
  __host__ __device__ static constexpr tc::Coord copy_chunk(int thread, int i) {
    const int v = thread + i * kThreads;
    return {v / kChunksPerLine, v % kChunksPerLine};
  }
  // Where warp w's WarpM x WarpN patch starts inside the block tile: warps run down M first, as in chapter 02.
  __host__ __device__ static constexpr tc::Coord warp_origin(int warp) {
    return {warp % WarpsM * WarpM, warp / WarpsM * WarpN};
  }

  static_assert(BlockM % WarpsM == 0 && BlockN % WarpsN == 0, "warps must split the block tile evenly");
  static_assert(WarpM % Mma::M == 0 && WarpN % Mma::N == 0 && BlockK % Mma::K == 0,
                "a warp's patch must be whole m16n8 tiles, and a stage whole 16-deep K steps");
  static_assert(tc::mma_m16n8k16_pairs_are_adjacent(), "one 32-bit load per register needs K-adjacent pairs");
  static_assert(Skew % kChunk == 0, "uint4 stores need every line to start 16-byte aligned");
  static_assert(kLines * kChunksPerLine % kThreads == 0, "every thread must issue the same number of copies");
  static_assert(kSmemBytes <= 48 * 1024, "static shared memory is limited to 48 KB per block");
};
// Chapter 02's block tile, so the two kernels differ only in how fragments reach registers. The skew of 8 halves
// (16 bytes) makes a line 80 bytes: the 8 rows a register load touches then start 20 banks apart, which spreads the
// warp's 32 lanes over all 32 banks (docs/05 prints the bank calculator's count); with no skew it is 4-way.
using DefaultMmaTile = MmaTile<128, 128, 32, 2, 4, 8>;
// [/doc:tile]

// [doc:kernel]
// One block computes the Tile::BlockM x Tile::BlockN tile of C = alpha * A * B + beta * C at block (x, y).
//   A: m x k, fp16, row-major (lda >= k); B: k x n, fp16, column-major (ldb >= k); C: m x n, fp32, column-major.
//   alpha, beta: fp32; C is read only when beta != 0. Accumulation in fp32.
// Preconditions: m, n, k multiples of BlockM, BlockN, BlockK; A, B 16-byte aligned and lda, ldb multiples of 8
// (uint4 loads); blockDim.x == Tile::kThreads; sm_80 or newer. Source: PTX ISA 9.7.14.5.8 and "mma"; CUDA C++
// Programming Guide, "Shared Memory".
template <typename Tile>
__global__ void __launch_bounds__(Tile::kThreads)
    mma_gemm_kernel(int m, int n, int k, float alpha, const __half* A, int lda, const __half* B, int ldb, float beta,
                    float* C, int ldc) {
  // 16-byte alignment for the uint4 stores; the 32-bit fragment loads then land on 4-byte boundaries.
  __shared__ __align__(16) __half smem[Tile::kStages * Tile::kStageHalves];
  const int lane = threadIdx.x % tc::kWarpSize;
  const int block_row = blockIdx.x * Tile::BlockM, block_col = blockIdx.y * Tile::BlockN;
  const tc::Coord warp = Tile::warp_origin(threadIdx.x / tc::kWarpSize);

  uint4 next[Tile::kCopies];  // the next stage, on its way from global memory through registers
  auto load_global = [&](int k0) {
    for (int i = 0; i < Tile::kCopies; ++i) {
      const tc::Coord c = Tile::copy_chunk(threadIdx.x, i);
      const __half* src = c.row < Tile::BlockM
                              ? A + static_cast<size_t>(block_row + c.row) * lda
                              : B + static_cast<size_t>(block_col + c.row - Tile::BlockM) * ldb;
      next[i] = *reinterpret_cast<const uint4*>(src + k0 + c.col * Tile::kChunk);
    }
  };
  auto store_shared = [&](int stage) {
    for (int i = 0; i < Tile::kCopies; ++i) {
      const tc::Coord c = Tile::copy_chunk(threadIdx.x, i);
      *reinterpret_cast<uint4*>(smem + stage * Tile::kStageHalves + Tile::smem_offset(c.row, c.col * Tile::kChunk)) =
          next[i];
    }
  };

  float acc[Tile::TilesM][Tile::TilesN][4] = {};  // c0..c3 of each m16n8 tile, fp32
  const int stages_k = k / Tile::BlockK;
  if (stages_k > 0) {  // k == 0 is legal (C = beta * C) and has no slice to load
    load_global(0);
    store_shared(0);
  }
  __syncthreads();  // stage 0 must be complete before any warp loads fragments from it
  for (int s = 0; s < stages_k; ++s) {
    const int stage = s % Tile::kStages;
    // Issue the next slice's global loads now; their latency hides behind the mma.sync work below.
    if (s + 1 < stages_k) load_global((s + 1) * Tile::BlockK);
    const __half* st = smem + stage * Tile::kStageHalves;
    for (int k0 = 0; k0 < Tile::BlockK; k0 += Tile::Mma::K) {
      std::uint32_t a[Tile::TilesM][Tile::Mma::kRegsA], b[Tile::TilesN][Tile::Mma::kRegsB];
      for (int i = 0; i < Tile::TilesM; ++i)
        for (int j = 0; j < Tile::Mma::kRegsA; ++j)
          a[i][j] = *reinterpret_cast<const std::uint32_t*>(
              st + Tile::a_register_offset(warp.row + i * Tile::Mma::M, k0, lane, j));
      for (int i = 0; i < Tile::TilesN; ++i)
        for (int j = 0; j < Tile::Mma::kRegsB; ++j)
          b[i][j] = *reinterpret_cast<const std::uint32_t*>(
              st + Tile::b_register_offset(warp.col + i * Tile::Mma::N, k0, lane, j));
      for (int i = 0; i < Tile::TilesM; ++i)
        for (int j = 0; j < Tile::TilesN; ++j)
          tc::mma_m16n8k16_row_col_f32_f16_f16_f32(acc[i][j], a[i], b[j], acc[i][j]);
    }
    // The other stage was last read in iteration s - 1, and the barrier that ended it guarantees every warp is done
    // with it, so it can be overwritten now while slower warps may still read this stage.
    if (s + 1 < stages_k) store_shared(stage ^ 1);
    __syncthreads();  // the next stage must be fully written before any warp reads it in iteration s + 1
  }

  // Epilogue: each lane owns c0..c3 of every tile, at the C/D formula's places. C is read only when beta != 0.
  for (int i = 0; i < Tile::TilesM; ++i)
    for (int j = 0; j < Tile::TilesN; ++j)
      for (int e = 0; e < tc::MmaM16N8K16::kElemsC; ++e) {
        const tc::Coord p = tc::mma_m16n8k16_c_coord(lane, e);
        float* c = C + (block_row + warp.row + i * Tile::Mma::M + p.row) +
                   static_cast<size_t>(block_col + warp.col + j * Tile::Mma::N + p.col) * ldc;
        *c = beta != 0.0f ? alpha * acc[i][j][e] + beta * *c : alpha * acc[i][j][e];
      }
}
// [/doc:kernel]

// [doc:launcher]
// Launch geometry, contract and launch, as tc/padded_gemm.hpp expects of a kernel: A row-major (op(A) = T in cuBLAS's
// terms), B column-major (op(B) = N), any M, N, K through tc::launch_gemm_any_size.
template <typename Tile = DefaultMmaTile>
struct MmaGemm {
  using Precision = tc::F16F32;  // fp16 in, fp32 accumulate and alpha/beta
  using LayoutA = tc::RowMajor;
  using LayoutB = tc::ColMajor;
  static constexpr const char* name = "mma.sync";
  // Whole block tiles; A and B move through uint4 (16-byte) loads, C through scalar fp32 stores.
  static constexpr tc::TileContract kContract{{Tile::BlockM, Tile::BlockN, Tile::BlockK}, tc::kVector16OperandRule,
                                              tc::kScalarF32OperandRule};

  // Enqueues the kernel. Preconditions: valid arguments that keep kContract, m, n > 0 (checked once, by
  // tc::launch_gemm_any_size or tc::launch_whole_tiles). Errors: tc::CudaError when the launch fails.
  static void launch(int m, int n, int k, float alpha, const __half* A, int lda, const __half* B, int ldb, float beta,
                     float* C, int ldc, cudaStream_t stream) {
    const dim3 grid(m / Tile::BlockM, n / Tile::BlockN);
    mma_gemm_kernel<Tile><<<grid, Tile::kThreads, 0, stream>>>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    tc::check_launch();
  }
};
// [/doc:launcher]

// The chapter's GEMM behind the tutorial's one launcher signature (cuBLAS's argument order): C = alpha * A * B +
// beta * C in place, A m x k row-major (lda >= max(1, k)), B k x n column-major (ldb >= max(1, k)), C m x n
// column-major (ldc >= max(1, m); rows m..ldc-1 never written), fp16 in, fp32 accumulate and scale, any m, n, k >= 0,
// device pointers, units of elements. Operands that break MmaGemm's tile contract go through padded scratch copies
// (tc/padded_gemm.hpp). Minimum SM 8.0. Errors: std::invalid_argument (one line) for bad sizes or leading dimensions;
// tc::CudaError for CUDA failures, out of memory for the scratch included. Source: cuBLAS documentation,
// "cublas<t>gemm()" (transa = T, transb = N).
inline void launch_mma_gemm(int m, int n, int k, float alpha, const __half* A, int lda, const __half* B, int ldb,
                            float beta, float* C, int ldc, cudaStream_t stream = nullptr) {
  tc::launch_gemm_any_size<MmaGemm<>>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}
