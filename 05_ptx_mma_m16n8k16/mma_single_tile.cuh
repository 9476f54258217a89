// Chapter 05, step 1 -- one mma.sync.m16n8k16 by hand: every lane loads its own fragment elements.
//
// What it adds over chapter 01: there, wmma::load_matrix_sync chose which elements each lane holds, and we could
// only measure it. Here the PTX ISA says which, the formulas in tc/layouts/mma_m16n8k16.hpp encode it, and each lane
// loads exactly those elements with ordinary loads, packs pairs of 16-bit values into 32-bit registers, issues one
// mma.sync, and stores its four results where the C/D formula says. Nothing is left to a library.
#pragma once

#include "tc/check.hpp"
#include "tc/layouts/lane_ids.hpp"  // tc::Coord, tc::kWarpSize
#include "tc/layouts/mma_m16n8k16.hpp"
#include "tc/layouts/tags.hpp"
#include "tc/mma_sync.cuh"
#include "tc/types.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

// One warp computes D = A * B + C for a single m16n8k16 tile with the variant Mma (tc/mma_sync.cuh).
//   A: 16 x 16 (M x K), Mma::Input, stored as LayoutA with leading dimension lda (elements).
//   B: 16 x 8 (K x N), Mma::Input, stored as LayoutB with ldb.
//   C, D: 16 x 8 (M x N), Mma::Output, stored as LayoutC with ldc, ldd. D may alias C.
// Any layout and ld work: the loads are per element, so nothing needs aligning (chapter 05's GEMM is where the
// 32-bit loads of register pairs come in). Preconditions: blockDim.x == 32 (mma.sync is a warp collective, and
// ".aligned" wants all 32 lanes); sm_80 or newer. Source: PTX ISA 9.7.14.5.8 (the formulas) and "mma" (the
// instruction).
// [doc:kernel]
template <typename Mma, typename LayoutA, typename LayoutB, typename LayoutC>
__global__ void mma_single_tile_kernel(const typename Mma::Input* A, int lda, const typename Mma::Input* B, int ldb,
                                       const typename Mma::Output* C, int ldc, typename Mma::Output* D, int ldd) {
  using S = tc::MmaM16N8K16;
  const int lane = threadIdx.x;
  std::uint32_t a[S::kRegsA], b[S::kRegsB];
  // c starts zeroed because set_c on a packed .f16 register rewrites one half and keeps the other.
  typename Mma::CReg c[Mma::kCRegs] = {}, d[Mma::kCRegs];
  // Register j holds elements 2j (bits 0..15) and 2j + 1 (bits 16..31).
  for (int j = 0; j < S::kRegsA; ++j) {
    const tc::Coord lo = tc::mma_m16n8k16_a_coord(lane, 2 * j), hi = tc::mma_m16n8k16_a_coord(lane, 2 * j + 1);
    a[j] = Mma::pack(A[LayoutA::offset(lo.row, lo.col, lda)], A[LayoutA::offset(hi.row, hi.col, lda)]);
  }
  for (int j = 0; j < S::kRegsB; ++j) {
    const tc::Coord lo = tc::mma_m16n8k16_b_coord(lane, 2 * j), hi = tc::mma_m16n8k16_b_coord(lane, 2 * j + 1);
    b[j] = Mma::pack(B[LayoutB::offset(lo.row, lo.col, ldb)], B[LayoutB::offset(hi.row, hi.col, ldb)]);
  }
  for (int i = 0; i < S::kElemsC; ++i) {
    const tc::Coord p = tc::mma_m16n8k16_c_coord(lane, i);
    Mma::set_c(c, i, static_cast<float>(C[LayoutC::offset(p.row, p.col, ldc)]));
  }
  Mma::mma(d, a, b, c);
  for (int i = 0; i < S::kElemsC; ++i) {
    const tc::Coord p = tc::mma_m16n8k16_c_coord(lane, i);
    D[LayoutC::offset(p.row, p.col, ldd)] = static_cast<typename Mma::Output>(Mma::get_c(d, i));
  }
}
// [/doc:kernel]

// Launches mma_single_tile_kernel as one warp on `stream`, in the argument order of every launcher in this tutorial:
// D = A * B + C with (m, n, k) = (16, 8, 16).
// Errors: std::invalid_argument (one line) if m, n, k are not 16, 8, 16 or an ld is below its matrix's line length;
// tc::CudaError if the launch fails (for example, no kernel image for this GPU).
template <typename Mma, typename LayoutA = tc::RowMajor, typename LayoutB = tc::RowMajor,
          typename LayoutC = tc::RowMajor>
void launch_mma_single_tile(int m, int n, int k, const typename Mma::Input* A, int lda, const typename Mma::Input* B,
                            int ldb, const typename Mma::Output* C, int ldc, typename Mma::Output* D, int ldd,
                            cudaStream_t stream = nullptr) {
  using S = tc::MmaM16N8K16;
  if (m != S::M || n != S::N || k != S::K) {
    throw std::invalid_argument("launch_mma_single_tile: m x n x k = " + std::to_string(m) + "x" + std::to_string(n) +
                                "x" + std::to_string(k) + " is not the instruction's 16x8x16");
  }
  auto require_ld = [](const char* what, int ld, int min_ld) {
    if (ld < min_ld) {
      throw std::invalid_argument(std::string("launch_mma_single_tile: ") + what + " = " + std::to_string(ld) +
                                  " is below the matrix's line length " + std::to_string(min_ld));
    }
  };
  require_ld("lda", lda, LayoutA::min_ld(S::M, S::K));
  require_ld("ldb", ldb, LayoutB::min_ld(S::K, S::N));
  require_ld("ldc", ldc, LayoutC::min_ld(S::M, S::N));
  require_ld("ldd", ldd, LayoutC::min_ld(S::M, S::N));
  constexpr int kThreads = tc::kWarpSize;  // one warp: the instruction is one warp-wide operation
  mma_single_tile_kernel<Mma, LayoutA, LayoutB, LayoutC><<<1, kThreads, 0, stream>>>(A, lda, B, ldb, C, ldc, D, ldd);
  tc::check_launch();
}
