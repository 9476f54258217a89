// Any M, N, K and any leading dimensions, for kernels that only compute whole tiles (chapters 02 to 06).
//
// Those kernels keep their inner loops free of bounds checks: WMMA loads and stores move whole tiles and cannot be
// predicated per element, and checks in the hot loop cost speed. When the operands break a kernel's tile contract
// (tc/tile_contract.hpp: its tile multiple and its own operand rules), the launcher instead copies them into scratch buffers whose sizes are rounded up to the tile
// and whose padding is zero (zero columns of op(A) times zero rows of op(B) add nothing to the sum), runs the kernel
// on those, and copies the m x n result back into C, leaving C's padding rows untouched. The copies are
// cudaMemset2DAsync/cudaMemcpy2DAsync calls, and the scratch is stream-ordered, so the whole launch stays
// asynchronous on its stream. Operands that already keep the contract (4096^3 with tight ld, say) go straight to the
// kernel with no copies at all.
//
// A Kernel here is a type with: Precision (Input, Accumulator for alpha and beta, and tc::output_t for C); name; kContract (a tc::TileContract); LayoutA and
// LayoutB, the storage-layout tags of op(A) and op(B) (tc::ColMajor for op N, tc::RowMajor for op T: tc::op_of); and
// launch(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream), which enqueues the kernel on operands that keep the
// contract, with m, n > 0, and checks nothing: the two launchers below are where the arguments and the contract are
// checked, once, on the way to it.
// Source: CUDA Runtime API, "Memory Management" (cudaMemcpy2DAsync, cudaMemsetAsync) and "Stream Ordered Memory
// Allocator"; cuBLAS documentation, "cublas<t>gemm()" for the argument rules.
#pragma once

#include "tc/check.hpp"
#include "tc/device_buffer.hpp"
#include "tc/gemm_args.hpp"
#include "tc/memory.hpp"
#include "tc/tile_contract.hpp"
#include "tc/types.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tc {

// [doc:padded]
// Scratch copies of A, B and C padded up to Kernel's tile multiple: op(A) mp x kp stored as Kernel::LayoutA, op(B)
// kp x np as Kernel::LayoutB, C mp x np column-major, each with the smallest ld its padded shape allows, rounded up to
// the multiple the contract's operand rules want (lda() says why k == 0 differs).
// Shapes: op(A) m x k, op(B) k x n, C m x n (device pointers, cuBLAS layout). Units: elements.
// Errors: tc::CudaError from allocation (out of memory) or the copies.
template <typename Kernel>
class PaddedOperands {
 public:
  using Input = typename Kernel::Precision::Input;
  using Acc = typename Kernel::Precision::Accumulator;  // alpha and beta
  using Out = output_t<typename Kernel::Precision>;     // C
  using LayoutA = typename Kernel::LayoutA;
  using LayoutB = typename Kernel::LayoutB;

  PaddedOperands(int m, int n, int k, cudaStream_t stream)
      : m_(m), n_(n), k_(k),
        mp_(round_up(m, Kernel::kContract.tile.m)), np_(round_up(n, Kernel::kContract.tile.n)), kp_(round_up(k, Kernel::kContract.tile.k)),
        stream_(stream),
        a_(std::size_t(lda()) * LayoutA::line_count(mp_, kp_), stream),
        b_(std::size_t(ldb()) * LayoutB::line_count(kp_, np_), stream), c_(std::size_t(ldc()) * np_, stream) {}

  int padded_m() const { return mp_; }
  int padded_n() const { return np_; }
  int padded_k() const { return kp_; }
  // The padded operands' leading dimensions: one padded line each (at least 1, as cuBLAS's rules want even when a
  // size is 0), rounded up to the contract's ld multiple (a kernel with tile multiple 1, such as chapter 08's, pads no
  // line, but TMA still wants 16-byte strides). With k == 0 a K-contiguous operand (row-major A, column-major B) has
  // lines of length 0, and the smallest legal ld, 1, would break the tile contract's ld rule; one tile's depth keeps
  // it, and nothing is read.
  int lda() const {
    return ld_for<Input>(LayoutA::min_ld(mp_, std::max(kp_, Kernel::kContract.tile.k)), Kernel::kContract.ab);
  }
  int ldb() const {
    return ld_for<Input>(LayoutB::min_ld(std::max(kp_, Kernel::kContract.tile.k), np_), Kernel::kContract.ab);
  }
  int ldc() const { return ld_for<Out>(ColMajor::min_ld(mp_, np_), Kernel::kContract.c); }

  // Zero-padded copies of A and B, and of C when beta != 0 (with beta == 0 neither C nor its copy is read).
  void copy_in(const Input* A, int lda, const Input* B, int ldb, Acc beta, const Out* C, int ldc) {
    copy_padded<LayoutA>(a_.data(), this->lda(), mp_, kp_, A, lda, m_, k_);
    copy_padded<LayoutB>(b_.data(), this->ldb(), kp_, np_, B, ldb, k_, n_);
    if (beta != Acc(0)) copy_padded<ColMajor>(c_.data(), this->ldc(), mp_, np_, C, ldc, m_, n_);
  }
  // The kernel alone, on the padded operands.
  void run_kernel(Acc alpha, Acc beta) {
    if (mp_ == 0 || np_ == 0) return;  // nothing to compute; an empty grid is not a valid launch
    Kernel::launch(mp_, np_, kp_, alpha, a_.data(), lda(), b_.data(), ldb(), beta, c_.data(), ldc(), stream_);
  }
  // The m x n result into C; rows m..ldc-1 of each column of C are not written.
  void copy_out(Out* C, int ldc) {
    if (m_ == 0 || n_ == 0) return;
    TC_CHECK(cudaMemcpy2DAsync(C, sizeof(Out) * ldc, c_.data(), sizeof(Out) * this->ldc(), sizeof(Out) * m_, n_,
                               cudaMemcpyDeviceToDevice, stream_));
  }

 private:
  // The smallest multiple of the rule's ld bytes (in elements of T) that is >= ld.
  template <typename T>
  static int ld_for(int ld, const OperandRule& rule) {
    const int multiple = int(sizeof(T)) < rule.ld_bytes ? rule.ld_bytes / int(sizeof(T)) : 1;
    return round_up(ld, multiple);
  }
  // dst (rows_p x cols_p stored as Layout, ld_dst) = src (rows x cols stored as Layout, ld_src), zero elsewhere. Both
  // layouts are runs of contiguous lines, so one 2-D copy of line_count lines does either.
  template <typename Layout, typename T>
  void copy_padded(T* dst, int ld_dst, int rows_p, int cols_p, const T* src, int ld_src, int rows, int cols) {
    if (rows_p == 0 || cols_p == 0) return;
    // All-bits-zero is 0 for every element type here. Only the padding needs it, but one memset of the whole
    // buffer is simpler than two strips and costs the same bandwidth order as the copy.
    TC_CHECK(cudaMemsetAsync(dst, 0, sizeof(T) * ld_dst * std::size_t(Layout::line_count(rows_p, cols_p)), stream_));
    if (rows == 0 || cols == 0) return;
    TC_CHECK(cudaMemcpy2DAsync(dst, sizeof(T) * ld_dst, src, sizeof(T) * ld_src,
                               sizeof(T) * Layout::line_length(rows, cols), Layout::line_count(rows, cols),
                               cudaMemcpyDeviceToDevice, stream_));
  }

  int m_, n_, k_, mp_, np_, kp_;
  cudaStream_t stream_;
  StreamOrderedBuffer<Input> a_, b_;
  StreamOrderedBuffer<Out> c_;
};

// C = alpha * op(A) * op(B) + beta * C for any m, n, k >= 0 and any valid lda, ldb, ldc (cuBLAS's rules for the ops
// Kernel's layouts stand for): straight to Kernel when the operands keep its tile contract, through PaddedOperands
// otherwise.
// Errors: std::invalid_argument (one line) for bad sizes or leading dimensions; tc::CudaError from CUDA.
template <typename Kernel>
void launch_gemm_any_size(int m, int n, int k, typename Kernel::Precision::Accumulator alpha,
                          const typename Kernel::Precision::Input* A, int lda,
                          const typename Kernel::Precision::Input* B, int ldb,
                          typename Kernel::Precision::Accumulator beta, output_t<typename Kernel::Precision>* C,
                          int ldc, cudaStream_t stream) {
  validate_gemm_arguments(op_of<typename Kernel::LayoutA>(), op_of<typename Kernel::LayoutB>(), m, n, k, lda, ldb,
                          ldc, ldc);
  if (!tile_contract_problem(Kernel::kContract, m, n, k, A, lda, B, ldb, C, ldc)) {
    if (m > 0 && n > 0) Kernel::launch(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);  // else: empty grid
    return;
  }
  PaddedOperands<Kernel> padded(m, n, k, stream);
  padded.copy_in(A, lda, B, ldb, beta, C, ldc);
  padded.run_kernel(alpha, beta);
  padded.copy_out(C, ldc);
}
// [/doc:padded]

// C = alpha * op(A) * op(B) + beta * C with Kernel alone, for operands that must keep its contract (the tile sweeps,
// which time one kernel, and the tests of the contract itself). Shapes and units: as launch_gemm_any_size.
// Errors: std::invalid_argument (one line) for bad sizes or leading dimensions, and, starting with Kernel::name, when
// the operands break the contract; tc::CudaError from the launch.
template <typename Kernel>
void launch_whole_tiles(int m, int n, int k, typename Kernel::Precision::Accumulator alpha,
                        const typename Kernel::Precision::Input* A, int lda, const typename Kernel::Precision::Input* B,
                        int ldb, typename Kernel::Precision::Accumulator beta,
                        output_t<typename Kernel::Precision>* C, int ldc, cudaStream_t stream) {
  validate_gemm_arguments(op_of<typename Kernel::LayoutA>(), op_of<typename Kernel::LayoutB>(), m, n, k, lda, ldb,
                          ldc, ldc);
  if (auto problem = tile_contract_problem(Kernel::kContract, m, n, k, A, lda, B, ldb, C, ldc)) {
    throw std::invalid_argument(std::string(Kernel::name) + ": " + *problem);
  }
  if (m > 0 && n > 0) Kernel::launch(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}

// The device bytes PaddedOperands<Kernel> takes for (m, n, k): what a launch through launch_gemm_any_size may allocate
// as scratch. Counted in 64 bits (sizes near 2^31 round up past int). Errors: tc::TooLargeError past 2^64 bytes.
template <typename Kernel>
MemoryNeed padded_operands_memory(int m, int n, int k) {
  auto up = [](int x, int multiple) { return (std::uint64_t(x) + multiple - 1) / multiple * multiple; };
  // Every padded dimension also rounded up to 16 elements: no ld rule asks more (16 bytes of 1-byte elements), so this
  // bounds what the ld rounding of lda(), ldb() and ldc() adds whichever dimension a layout's lines run along.
  const std::uint64_t mp = up(up(m, Kernel::kContract.tile.m), 16), np = up(up(n, Kernel::kContract.tile.n), 16);
  const std::uint64_t kd = up(std::max(up(k, Kernel::kContract.tile.k), std::uint64_t(Kernel::kContract.tile.k)), 16);
  using In = typename Kernel::Precision::Input;
  using Out = output_t<typename Kernel::Precision>;
  return {0, checked_sum({checked_bytes(checked_bytes(mp, kd), sizeof(In)), checked_bytes(checked_bytes(kd, np), sizeof(In)),
                          checked_bytes(checked_bytes(mp, np), sizeof(Out))})};
}

}  // namespace tc
