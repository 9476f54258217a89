// Chapter 02, step 2 -- the block-tiled WMMA GEMM: a thread block shares A and B tiles through shared memory.
//
// What it adds over the naive kernel: reuse. A block of warps (8 of them for the 16-bit types) computes a
// BlockM x BlockN tile of C. For each BlockK-deep slice of K it copies the BlockM x BlockK tile of A and the
// BlockK x BlockN tile of B from global memory into shared memory once, and every warp then loads its fragments from
// there: each element fetched from global memory
// feeds BlockN / P::N (A) or BlockM / P::M (B) tensor-core operations instead of one. Each warp keeps a
// FragsM x FragsN grid of accumulator fragments in registers for the whole K loop. Two more things keep the tensor
// cores fed: the global loads of the next slice are issued before the current slice is computed (double buffering
// through registers), and the shared-memory columns are padded by 16 bytes so fragment loads do not collide in the
// same banks. Same precisions, same tile contract and same epilogue as wmma_naive_gemm.cuh.
#pragma once

#include "tc/check.hpp"
#include "tc/gemm_args.hpp"
#include "tc/layouts/lane_ids.hpp"  // tc::Coord, tc::kWarpSize
#include "tc/layouts/tags.hpp"
#include "tc/tile_contract.hpp"
#include "tc/wmma.cuh"

#include <cuda_runtime.h>

#include <cstdint>

// [doc:block_tile]
// A block tile: BlockM x BlockN of C per block, BlockK of K per shared-memory stage, WarpsM x WarpsN warps.
template <typename P, int BlockM_, int BlockN_, int BlockK_, int WarpsM_, int WarpsN_>
struct BlockTile {
  using Input = typename P::Input;
  static constexpr int BlockM = BlockM_, BlockN = BlockN_, BlockK = BlockK_;
  static constexpr int WarpsM = WarpsM_, WarpsN = WarpsN_;
  static constexpr int kThreads = WarpsM * WarpsN * tc::kWarpSize;
  static constexpr int WarpM = BlockM / WarpsM, WarpN = BlockN / WarpsN;  // each warp's patch of C
  static constexpr int FragsM = WarpM / P::M, FragsN = WarpN / P::N;       // accumulator fragments per warp
  static constexpr int kVector = 16 / int(sizeof(Input));  // elements per 16-byte (uint4) global load
  // Shared memory holds A as (BlockM, BlockK) column-major and B as (BlockK, BlockN) column-major, as in global
  // memory. A fragment load reads 8 columns of 16 bytes each; with a column stride that is a multiple of 128 bytes
  // all 8 land in the same 4 banks (8-way conflict). 16 extra bytes per column shift each column by 4 banks.
  static constexpr int kSkew = kVector;
  static constexpr int LdA = BlockM + kSkew;  // elements between columns of the smem A tile
  static constexpr int LdB = BlockK + kSkew;  // elements between columns of the smem B tile
  static constexpr int kStageElements = BlockK * LdA + BlockN * LdB;
  static constexpr int kStages = 2;  // compute on one while the other is refilled
  static constexpr int kSmemBytes = kStages * kStageElements * int(sizeof(Input));
  static constexpr int kLoadsA = BlockM * BlockK / kVector / kThreads;  // uint4 loads per thread per stage
  static constexpr int kLoadsB = BlockK * BlockN / kVector / kThreads;

  // Where warp w's WarpM x WarpN patch starts inside the block tile: warps run down M first. The kernel and the
  // figure in docs/02 both use this one function.
  __host__ __device__ static constexpr tc::Coord warp_origin(int warp) {
    return {warp % WarpsM * WarpM, warp / WarpsM * WarpN};
  }

  static_assert(BlockM % WarpsM == 0 && BlockN % WarpsN == 0, "warps must split the block tile evenly");
  static_assert(WarpM % P::M == 0 && WarpN % P::N == 0 && BlockK % P::K == 0,
                "a warp's patch must be whole fragments, and a stage whole P::K slices");
  static_assert(BlockM % kVector == 0 && BlockK % kVector == 0, "16-byte loads must not straddle a column");
  static_assert(BlockM * BlockK % (kVector * kThreads) == 0 && BlockK * BlockN % (kVector * kThreads) == 0,
                "every thread must issue the same number of 16-byte loads per stage");
  static_assert(kSmemBytes <= 48 * 1024, "static shared memory is limited to 48 KB per block");
};

// The tiles measured in docs/02_wmma_tiled_gemm.md (one configuration each, not a sweep; exercise 1 tries others).
// 8 warps of 64 x 32 for the 16-bit and 8-bit types; tf32 halves BlockK because its elements are twice as wide; f64 fragments are 8x8 and its 4 x 4
// accumulator fragments of 2 doubles already cost 64 registers per thread at a 64 x 64 block.
template <typename P>
struct DefaultBlockTile {
  using type = BlockTile<P, 128, 128, 32, 2, 4>;
};
template <>
struct DefaultBlockTile<tc::WmmaTF32> {
  using type = BlockTile<tc::WmmaTF32, 128, 128, 16, 2, 4>;
};
template <>
struct DefaultBlockTile<tc::WmmaF64> {
  using type = BlockTile<tc::WmmaF64, 64, 64, 16, 2, 2>;
};
// [/doc:block_tile]

// [doc:block_kernel]
// One block computes the Tile::BlockM x Tile::BlockN tile of C = alpha * A * B + beta * C at block (x, y).
// Shapes, units, alpha/beta and the epilogue as in wmma_naive_gemm_kernel. Preconditions: m, n, k multiples of
// BlockM, BlockN, BlockK; the WMMA memory rules for A, B, C (which also make every uint4 load 16-byte aligned);
// blockDim.x == Tile::kThreads. Source: CUDA C++ Programming Guide, "Warp Matrix Functions" and "Shared Memory".
template <typename P, typename Tile>
__global__ void __launch_bounds__(Tile::kThreads)
    wmma_block_tiled_gemm_kernel(int m, int n, int k, typename P::Accumulator alpha, const typename P::Input* A,
                                 int lda, const typename P::Input* B, int ldb, typename P::Accumulator beta,
                                 typename P::Accumulator* C, int ldc) {
  using namespace nvcuda;
  using Input = typename P::Input;
  using Acc = typename P::Accumulator;
  // 128-byte alignment so that every 16-byte vector and 32-byte fragment address computed below is aligned.
  __shared__ __align__(128) Input smem[Tile::kStages * Tile::kStageElements];
  const int block_row = blockIdx.x * Tile::BlockM;
  const int block_col = blockIdx.y * Tile::BlockN;
  const tc::Coord origin = Tile::warp_origin(threadIdx.x / tc::kWarpSize);  // this warp's patch in the block tile
  const int warp_row = origin.row;
  const int warp_col = origin.col;

  // Stage loads: consecutive threads take consecutive 16-byte pieces down a column, so a warp reads whole
  // 128-byte lines (coalesced) and writes shared memory without conflicts.
  uint4 next_a[Tile::kLoadsA];
  uint4 next_b[Tile::kLoadsB];
  auto load_global = [&](int l0) {
    for (int i = 0; i < Tile::kLoadsA; ++i) {
      const int v = threadIdx.x + i * Tile::kThreads;
      const int r = v % (Tile::BlockM / Tile::kVector) * Tile::kVector, c = v / (Tile::BlockM / Tile::kVector);
      next_a[i] = *reinterpret_cast<const uint4*>(A + block_row + r + static_cast<size_t>(l0 + c) * lda);
    }
    for (int i = 0; i < Tile::kLoadsB; ++i) {
      const int v = threadIdx.x + i * Tile::kThreads;
      const int r = v % (Tile::BlockK / Tile::kVector) * Tile::kVector, c = v / (Tile::BlockK / Tile::kVector);
      next_b[i] = *reinterpret_cast<const uint4*>(B + l0 + r + static_cast<size_t>(block_col + c) * ldb);
    }
  };
  auto store_shared = [&](int stage) {
    Input* sa = smem + stage * Tile::kStageElements;  // (BlockM, BlockK) column-major, ld LdA
    Input* sb = sa + Tile::BlockK * Tile::LdA;        // (BlockK, BlockN) column-major, ld LdB
    for (int i = 0; i < Tile::kLoadsA; ++i) {
      const int v = threadIdx.x + i * Tile::kThreads;
      const int r = v % (Tile::BlockM / Tile::kVector) * Tile::kVector, c = v / (Tile::BlockM / Tile::kVector);
      *reinterpret_cast<uint4*>(sa + r + c * Tile::LdA) = next_a[i];
    }
    for (int i = 0; i < Tile::kLoadsB; ++i) {
      const int v = threadIdx.x + i * Tile::kThreads;
      const int r = v % (Tile::BlockK / Tile::kVector) * Tile::kVector, c = v / (Tile::BlockK / Tile::kVector);
      *reinterpret_cast<uint4*>(sb + r + c * Tile::LdB) = next_b[i];
    }
  };

  wmma::fragment<wmma::accumulator, P::M, P::N, P::K, Acc> acc[Tile::FragsM][Tile::FragsN];
  for (auto& row : acc)
    for (auto& f : row) wmma::fill_fragment(f, Acc(0));

  const int stages_k = k / Tile::BlockK;
  if (stages_k > 0) {  // k == 0 is legal (C = beta * C) and has no slice to load
    load_global(0);
    store_shared(0);
  }
  __syncthreads();  // stage 0 must be complete before any warp loads fragments from it
  for (int s = 0; s < stages_k; ++s) {
    const int stage = s % Tile::kStages;
    // Issue the next slice's global loads now; their latency hides behind the mma_sync work below.
    if (s + 1 < stages_k) load_global((s + 1) * Tile::BlockK);
    const Input* sa = smem + stage * Tile::kStageElements;
    const Input* sb = sa + Tile::BlockK * Tile::LdA;
    for (int l = 0; l < Tile::BlockK; l += P::K) {
      wmma::fragment<wmma::matrix_a, P::M, P::N, P::K, typename P::Fragment, wmma::col_major> a[Tile::FragsM];
      wmma::fragment<wmma::matrix_b, P::M, P::N, P::K, typename P::Fragment, wmma::col_major> b[Tile::FragsN];
      for (int i = 0; i < Tile::FragsM; ++i) {
        wmma::load_matrix_sync(a[i], sa + warp_row + i * P::M + l * Tile::LdA, Tile::LdA);
        P::to_fragment_precision(a[i]);
      }
      for (int j = 0; j < Tile::FragsN; ++j) {
        wmma::load_matrix_sync(b[j], sb + l + (warp_col + j * P::N) * Tile::LdB, Tile::LdB);
        P::to_fragment_precision(b[j]);
      }
      for (int i = 0; i < Tile::FragsM; ++i)
        for (int j = 0; j < Tile::FragsN; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
    // The other stage was last read in iteration s - 1, and the barrier that ended it guarantees every warp is done
    // with it, so it can be overwritten now while slower warps may still read this stage.
    if (s + 1 < stages_k) store_shared(stage ^ 1);
    __syncthreads();  // the next stage must be fully written before any warp reads it in iteration s + 1
  }

  // Epilogue, per fragment, as in the naive kernel: C is read only when beta != 0.
  for (int i = 0; i < Tile::FragsM; ++i) {
    for (int j = 0; j < Tile::FragsN; ++j) {
      Acc* c_tile = C + block_row + warp_row + i * P::M + static_cast<size_t>(block_col + warp_col + j * P::N) * ldc;
      if (beta != Acc(0)) {
        wmma::fragment<wmma::accumulator, P::M, P::N, P::K, Acc> c;
        wmma::load_matrix_sync(c, c_tile, ldc, wmma::mem_col_major);
        for (int e = 0; e < c.num_elements; ++e) acc[i][j].x[e] = alpha * acc[i][j].x[e] + beta * c.x[e];
      } else {
        for (int e = 0; e < acc[i][j].num_elements; ++e) acc[i][j].x[e] = alpha * acc[i][j].x[e];
      }
      wmma::store_matrix_sync(c_tile, acc[i][j], ldc, wmma::mem_col_major);
    }
  }
}
// [/doc:block_kernel]

// Launch geometry, contract and launch, as tc/padded_gemm.hpp expects of a kernel.
template <typename P, typename Tile = typename DefaultBlockTile<P>::type>
struct WmmaBlockTiledGemm {
  using Precision = P;
  using LayoutA = tc::ColMajor;
  using LayoutB = tc::ColMajor;
  static constexpr const char* name = "block-tiled";
  // Whole block tiles only; A and B through WMMA's loads (from global memory), C through its stores.
  static constexpr tc::TileContract kContract{{Tile::BlockM, Tile::BlockN, Tile::BlockK}, tc::kWmmaOperandRule,
                                              tc::kWmmaOperandRule};
  static dim3 block() { return dim3(Tile::kThreads); }
  static dim3 grid(int m, int n) { return dim3((m + Tile::BlockM - 1) / Tile::BlockM, (n + Tile::BlockN - 1) / Tile::BlockN); }

  // Enqueues the kernel. Preconditions: valid arguments that keep kContract, m, n > 0 (checked once, by
  // tc::launch_gemm_any_size or tc::launch_whole_tiles). Errors: tc::CudaError when the launch fails.
  static void launch(int m, int n, int k, typename P::Accumulator alpha, const typename P::Input* A, int lda,
                     const typename P::Input* B, int ldb, typename P::Accumulator beta, typename P::Accumulator* C,
                     int ldc, cudaStream_t stream) {
    wmma_block_tiled_gemm_kernel<P, Tile><<<grid(m, n), block(), 0, stream>>>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    tc::check_launch();
  }
};
