// Chapter 09 -- what the steps share: the launch struct that the project's launchers (tc/padded_gemm.hpp) and the
// driver take, for 8-bit inputs.
//
// Every step computes C = alpha * A * B + beta * C (fp8 steps: times the operands' scales) with A row-major M x K and B
// column-major K x N: both K-major, the only layout 8-bit wgmma reads (it takes no transpose for 8-bit types). The
// kernels run on chapter 08's machinery with another slice: 128 8-bit values of K a row instead of 64 16-bit ones,
// the same 128 bytes, so the ring, the producer (tc::ws_load_tiles), the clusters, the persistent grid and the
// TMA-store epilogue are common's, unchanged; each step has its own consumer loop. Any M, N and K: TMA reads zeros
// past the edges of A and B and the TMA store clips C; operands TMA cannot address (ld not a multiple of 16 bytes, a
// base not 16-byte aligned, m * sizeof(C) not a multiple of 16 bytes) take the padded path of tc/padded_gemm.hpp.
#pragma once

#include "tc/layouts/tags.hpp"
#include "tc/tile_contract.hpp"
#include "tc/types.hpp"

#include <cuda_runtime.h>

// [doc:launch]
// A step as the project's launchers take it: Step::launch_kernel<Tile, Precision> enqueues it on operands that keep
// kContract. alpha and beta have the accumulator's type: int32 for s8 and u8 (cuBLAS's CUBLAS_COMPUTE_32I), fp32 for
// fp8. Preconditions: valid arguments that keep kContract, m, n > 0 (checked once, by tc::launch_gemm_any_size); an
// SM 9.0 GPU. Errors: std::runtime_error when the GPU has too little shared memory; std::invalid_argument from the
// tensor maps; tc::CudaError when the launch fails.
template <typename Step_, typename Tile_, typename Precision_>
struct Gemm8 {
  using Step = Step_;
  using Tile = Tile_;
  using Precision = Precision_;
  using LayoutA = tc::RowMajor;
  using LayoutB = tc::ColMajor;
  using Input = typename Precision::Input;
  using Scalar = typename Precision::Accumulator;
  using Out = tc::output_t<Precision>;
  static constexpr const char* name = Step::name;
  static constexpr tc::TileContract kContract{{1, 1, 1}, tc::kTmaOperandRule, tc::kTmaStoreOperandRule};

  static void launch(int m, int n, int k, Scalar alpha, const Input* A, int lda, const Input* B, int ldb, Scalar beta,
                     Out* C, int ldc, cudaStream_t stream) {
    Step::template launch_kernel<Tile, Precision>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  }
};
// [/doc:launch]
