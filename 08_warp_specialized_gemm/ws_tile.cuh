// Chapter 08 -- what the five steps share, beyond common's tile (tc/ws_tile.cuh): the direct epilogue of steps 1 to 3,
// and the launch struct with its tile contract.
//
// Every step computes C = alpha * A * B + beta * C with A row-major M x K and B column-major K x N (both K-major, as
// wgmma reads them), fp16 or bf16 in, fp32 accumulate, C column-major (fp32; steps 4 and 5 also bf16). A block has
// three warpgroups: warpgroup 0 is the producer (one thread issues every TMA load), warpgroups 1 and 2 are the
// consumers, each owning 64 rows of the 128 x 256 block tile as one m64n256k16 accumulator (128 fp32 registers a
// thread; step 5's taller tile splits along N instead: tc::WsTile). K advances one 64-element slice
// (tc/wgmma_slice.cuh) at a time through a ring of Stages slices.
// Any M, N and K: TMA reads zeros past the edges of A and B, and the epilogues write only inside C, so a partial tile
// costs a whole tile's math but needs no padded copies; only operands TMA cannot address (ld not a multiple of 16
// bytes, a base not 16-byte aligned) take the padded path of tc/padded_gemm.hpp.
#pragma once

#include "tc/layouts/tags.hpp"
#include "tc/layouts/wgmma.hpp"
#include "tc/tile_contract.hpp"
#include "tc/types.hpp"
#include "tc/ws_tile.cuh"

#include <cuda_runtime.h>

#include <cstddef>

// [doc:direct_epilogue]
// Steps 1 to 3's epilogue: C = alpha * acc + beta * C straight from the registers, for one 64 x N accumulator of this
// warpgroup at (row0, col0), each register at tc::wgmma_m64nNk16_d_coord, only where it lies inside the m x n C.
// C column-major (ldc); beta == 0 does not read C.
struct DirectEpilogue {
  struct Params {
    float* C;
    int ldc;
  };
  template <int N>
  __device__ static void store(const Params& out, const float (&acc)[N / 2], int m, int n, int row0, int col0,
                               float alpha, float beta) {
    const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
#pragma unroll
    for (int i = 0; i < N / 2; ++i) {
      const tc::Coord p = tc::wgmma_m64nNk16_d_coord(warp, lane, i);
      const int row = row0 + p.row, col = col0 + p.col;
      if (row < m && col < n) {
        float* c = out.C + row + static_cast<std::size_t>(col) * out.ldc;
        *c = beta != 0.0f ? alpha * acc[i] + beta * *c : alpha * acc[i];
      }
    }
  }
};
// [/doc:direct_epilogue]

// [doc:launch]
// A step as the project's launchers take it (tc/padded_gemm.hpp): Step::launch_kernel<Tile, Precision> enqueues it
// on operands that keep kContract. Any m, n, k (TMA clips); A and B as TMA reads them; C as the step's epilogue
// writes it (Step::kCRule: scalar stores, or a TMA store's 16-byte rule).
template <typename Step_, typename Tile_, typename Precision_>
struct WsGemm {
  using Step = Step_;
  using Tile = Tile_;
  using Precision = Precision_;
  using LayoutA = tc::RowMajor;
  using LayoutB = tc::ColMajor;
  using Out = tc::output_t<Precision>;
  static constexpr const char* name = Step::name;
  static constexpr tc::TileContract kContract{{1, 1, 1}, tc::kTmaOperandRule, Step::kCRule};

  // Enqueues the step. Preconditions: valid arguments that keep kContract, m, n > 0 (checked once, by
  // tc::launch_gemm_any_size); an SM 9.0 GPU. Errors: std::runtime_error when the GPU has too little shared memory;
  // std::invalid_argument from the tensor maps; tc::CudaError when the launch fails.
  static void launch(int m, int n, int k, float alpha, const typename Precision::Input* A, int lda,
                     const typename Precision::Input* B, int ldb, float beta, Out* C, int ldc, cudaStream_t stream) {
    Step::template launch_kernel<Tile, Precision>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  }
};
// [/doc:launch]
