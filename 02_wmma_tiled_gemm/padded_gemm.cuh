// Chapter 02 -- any M, N, K and any leading dimensions, for kernels that only compute whole tiles.
//
// The kernels in this chapter keep their inner loops free of bounds checks: WMMA loads and stores move whole tiles
// and cannot be predicated per element, and checks in the hot loop cost speed. When the operands break a kernel's
// tile contract (tile_contract.hpp), the launcher instead copies them into scratch buffers whose sizes are rounded up
// to the tile and whose padding is zero (zero columns of A times zero rows of B add nothing to the sum), runs the
// kernel on those, and copies the m x n result back into C, leaving C's padding rows untouched. The copies are
// cudaMemset2DAsync/cudaMemcpy2DAsync calls, and the scratch is stream-ordered, so the whole launch stays
// asynchronous on its stream. Operands that already keep the contract (4096^3 with tight ld, say) go straight to the
// kernel with no copies at all.
// Source: CUDA Runtime API, "Memory Management" (cudaMemcpy2DAsync, cudaMemset2DAsync) and "Stream Ordered Memory
// Allocator".
#pragma once

#include "tile_contract.hpp"

#include "tc/check.hpp"
#include "tc/device_buffer.hpp"
#include "tc/reference.hpp"

#include <cuda_runtime.h>

#include <cstddef>

// [doc:padded]
// Scratch copies of A, B and C padded up to Kernel's tile multiple, all column-major with ld = the padded row count.
// Shapes: A m x k, B k x n, C m x n (device pointers, cuBLAS layout). Units: elements.
// Errors: tc::CudaError from allocation (out of memory) or the copies.
template <typename Kernel>
class PaddedOperands {
 public:
  using Input = typename Kernel::Precision::Input;
  using Acc = typename Kernel::Precision::Accumulator;

  PaddedOperands(int m, int n, int k, cudaStream_t stream)
      : m_(m), n_(n), k_(k),
        mp_(round_up(m, Kernel::kTile.m)), np_(round_up(n, Kernel::kTile.n)), kp_(round_up(k, Kernel::kTile.k)),
        stream_(stream),
        a_(std::size_t(mp_) * kp_, stream), b_(std::size_t(kp_) * np_, stream), c_(std::size_t(mp_) * np_, stream) {}

  int padded_m() const { return mp_; }
  int padded_n() const { return np_; }
  int padded_k() const { return kp_; }

  // Zero-padded copies of A and B, and of C when beta != 0 (with beta == 0 neither C nor its copy is read).
  void copy_in(const Input* A, int lda, const Input* B, int ldb, Acc beta, const Acc* C, int ldc) {
    copy_padded(a_.data(), mp_, kp_, A, lda, m_, k_);
    copy_padded(b_.data(), kp_, np_, B, ldb, k_, n_);
    if (beta != Acc(0)) copy_padded(c_.data(), mp_, np_, C, ldc, m_, n_);
  }
  // The kernel alone, on the padded operands.
  void run_kernel(Acc alpha, Acc beta) {
    Kernel::launch(mp_, np_, kp_, alpha, a_.data(), mp_, b_.data(), kp_, beta, c_.data(), mp_, stream_);
  }
  // The m x n result into C; rows m..ldc-1 of each column of C are not written.
  void copy_out(Acc* C, int ldc) {
    if (m_ == 0 || n_ == 0) return;
    TC_CHECK(cudaMemcpy2DAsync(C, sizeof(Acc) * ldc, c_.data(), sizeof(Acc) * mp_, sizeof(Acc) * m_, n_,
                               cudaMemcpyDeviceToDevice, stream_));
  }

 private:
  // dst (rows_p x cols_p, ld rows_p) = src (rows x cols, ld_src), zero elsewhere.
  template <typename T>
  void copy_padded(T* dst, int rows_p, int cols_p, const T* src, int ld_src, int rows, int cols) {
    if (rows_p == 0 || cols_p == 0) return;
    // All-bits-zero is 0 for every element type here. Only the padding needs it, but one memset of the whole
    // buffer is simpler than two strips and costs the same bandwidth order as the copy.
    TC_CHECK(cudaMemsetAsync(dst, 0, sizeof(T) * rows_p * std::size_t(cols_p), stream_));
    if (rows == 0 || cols == 0) return;
    TC_CHECK(cudaMemcpy2DAsync(dst, sizeof(T) * rows_p, src, sizeof(T) * ld_src, sizeof(T) * rows, cols,
                               cudaMemcpyDeviceToDevice, stream_));
  }

  int m_, n_, k_, mp_, np_, kp_;
  cudaStream_t stream_;
  tc::StreamOrderedBuffer<Input> a_, b_;
  tc::StreamOrderedBuffer<Acc> c_;
};

// C = alpha * A * B + beta * C for any m, n, k >= 0 and any valid lda, ldb, ldc (cuBLAS's rules, column-major, no
// transposes): straight to Kernel when the operands keep its tile contract, through PaddedOperands otherwise.
// Errors: std::invalid_argument (one line) for bad sizes or leading dimensions; tc::CudaError from CUDA.
// Source: cuBLAS documentation, "cublas<t>gemm()" (the argument rules); CUDA Runtime API for the copies.
template <typename Kernel>
void launch_gemm_any_size(int m, int n, int k, typename Kernel::Precision::Accumulator alpha,
                          const typename Kernel::Precision::Input* A, int lda,
                          const typename Kernel::Precision::Input* B, int ldb,
                          typename Kernel::Precision::Accumulator beta, typename Kernel::Precision::Accumulator* C,
                          int ldc, cudaStream_t stream) {
  tc::validate_gemm_arguments(tc::Op::N, tc::Op::N, m, n, k, lda, ldb, ldc, ldc);
  if (!tile_contract_problem(Kernel::kTile, m, n, k, A, lda, B, ldb, C, ldc)) {
    Kernel::launch(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
    return;
  }
  PaddedOperands<Kernel> padded(m, n, k, stream);
  padded.copy_in(A, lda, B, ldb, beta, C, ldc);
  padded.run_kernel(alpha, beta);
  padded.copy_out(C, ldc);
}
// [/doc:padded]
