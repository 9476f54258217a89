// Chapter 05's own sections: what main.cu prints besides the driver's GEMM tables.
//   - explain (host): the three m16n8k16 fragment layouts from the PTX ISA's formulas, and what the GEMM loads per
//     mma.sync, with the bank cost of one load;
//   - single_tile (GPU): one tile by hand for each instruction variant, against the CPU, and single_tile_checks: the
//     same instruction through both checks of tc/gemm_check.hpp;
//   - probe and compare_with_wmma (GPU): where the real instruction puts each register, against the formulas, and
//     chapter 01's measured WMMA fragments against the same formulas.
// Shapes: m16n8k16 (A 16 x 16 row-major, B 16 x 8 column-major, C/D 16 x 8). Units: elements, lanes, registers.
// Errors: tc::CudaError from the GPU parts; tc::UsageError when a figure cannot be written. Source: PTX ISA,
// "Matrix Fragments for mma.m16n8k16"; CUDA C++ Programming Guide, "Warp Matrix Functions" (the WMMA side).
#pragma once

#include "mma_gemm.cuh"
#include "mma_probe.cuh"
#include "mma_single_tile.cuh"
#include "tools/lane_figures.hpp"

#include "tc/compare.hpp"
#include "tc/cublas_reference.hpp"
#include "tc/device_buffer.hpp"
#include "tc/gemm_check.hpp"
#include "tc/gemm_driver.hpp"  // tc::RunOptions
#include "tc/layout_maps.hpp"
#include "tc/layouts/smem_banks.hpp"
#include "tc/main.hpp"         // tc::write_text_file
#include "tc/matrix.hpp"
#include "tc/reference.hpp"
#include "tc/wmma_probe.cuh"

#include <array>
#include <cstdio>
#include <string>
#include <vector>

// (2) The layouts and what they cost a GEMM, on the host.
// One warp's 32-bit load of A register 0, from the kernel's own addresses.
template <typename Tile>
inline tc::AccessCost a_register_load_cost() {
  std::array<std::int64_t, tc::kWarpSize> address{};
  for (int lane = 0; lane < tc::kWarpSize; ++lane)
    address[lane] = std::int64_t(Tile::a_register_offset(0, 0, lane, 0)) * sizeof(__half);
  return tc::vector_access_cost(address, 4);
}

inline void explain(const tc::RunOptions& o) {
  using S = tc::MmaM16N8K16;
  const char* names[] = {"A (16 x 16, M x K)", "B (16 x 8, K x N)", "C/D (16 x 8, M x N)"};
  const char* regs[] = {"a", "b", "c"};
  const tc::MmaOperand ops[] = {tc::MmaOperand::A, tc::MmaOperand::B, tc::MmaOperand::C};
  for (int o_i = 0; o_i < 3; ++o_i) {
    const tc::LaneMap map = tc::mma_m16n8k16_map(ops[o_i]);
    std::printf("\n== m16n8k16 %s: the PTX ISA's formulas (tc/layouts/mma_m16n8k16.hpp) ==\n", names[o_i]);
    std::fputs(map.format_lane_list(regs[o_i]).c_str(), stdout);
    std::printf("which lane holds each element:\n");
    std::fputs(map.format_grid().c_str(), stdout);
  }
  std::printf("\nRegister packing: element 2j sits in bits 0..15 and element 2j+1 in bits 16..31 of 32-bit register "
              "j (C: only with .f16\naccumulators; .f32 C is one register per element). The pair are K neighbours "
              "in A and B, so one 32-bit load\nfrom a K-contiguous tile fills one register.\n");
  if (!o.svg_dir.empty()) {
    tc::write_figures(o.svg_dir, mma_lane_figures());
  }

  using T = DefaultMmaTile;
  const int loads = T::TilesM * S::kRegsA + T::TilesN * S::kRegsB, mmas = T::TilesM * T::TilesN;
  std::printf("\n== the GEMM's fragment loads (host arithmetic: MmaTile) ==\n");
  std::printf("block tile %d x %d, %d warps of %d x %d = %d x %d m16n8 tiles; per warp and K step of 16: %d x %d A "
              "registers + %d x %d B registers\n= %d shared loads of 4 bytes per lane (%d bytes per warp each) for %d "
              "mma.sync: %.1f loads per mma\n",
              T::BlockM, T::BlockN, T::kThreads / tc::kWarpSize, T::WarpM, T::WarpN, T::TilesM, T::TilesN, T::TilesM,
              S::kRegsA, T::TilesN, S::kRegsB, loads, tc::kWarpSize * 4, mmas, double(loads) / mmas);
  const tc::AccessCost skewed = a_register_load_cost<T>();
  const tc::AccessCost flat = a_register_load_cost<MmaTile<128, 128, 32, 2, 4, 0>>();
  std::printf("bank cost of one such load (bank calculator, tc/layouts/smem_banks.hpp): skew %d halves (ld %d): %d "
              "wavefront(s); no skew (ld %d): %d\n",
              T::Skew, T::kLd, skewed.wavefronts, T::BlockK, flat.wavefronts);
}

// (4) One tile, with A[m][k] = 0.01 * (16m + k) and B[k][n] = 0.01 * (8k + n) rounded to the input type, C = 0.
// Its check is the K-scaled bound of real data, which at the f16 variant's bound cannot see every K column (docs/05,
// "What the checks catch"), so single_tile_checks, below, checks each variant on integers too.
template <typename Mma>
inline bool single_tile(bool print) {
  using S = tc::MmaM16N8K16;
  using In = typename Mma::Input;
  using Out = typename Mma::Output;
  tc::HostMatrix<In, tc::RowMajor> a(S::M, S::K), b(S::K, S::N);
  for (int r = 0; r < S::M; ++r)
    for (int c = 0; c < S::K; ++c) a(r, c) = tc::from_double<In>(0.01 * (16 * r + c));
  for (int r = 0; r < S::K; ++r)
    for (int c = 0; c < S::N; ++c) b(r, c) = tc::from_double<In>(0.01 * (8 * r + c));
  // The CPU reference in double on the rounded inputs; row-major storage is op T in cuBLAS's column-major terms.
  const tc::GemmReference ref = tc::reference_gemm(tc::op_of<tc::RowMajor>(), tc::op_of<tc::RowMajor>(), S::M, S::N,
                                                   S::K, 1.0, a.storage(), a.ld(), b.storage(), b.ld(), 0.0,
                                                   std::vector<float>{}, S::M);

  tc::DeviceBuffer<In> d_a(a.storage()), d_b(b.storage());
  tc::DeviceBuffer<Out> d_c(std::vector<Out>(S::M * S::N, tc::from_double<Out>(0.0))), d_d(S::M * S::N);
  d_d.poison();
  launch_mma_single_tile<Mma>(S::M, S::N, S::K, d_a.data(), a.ld(), d_b.data(), b.ld(), d_c.data(), S::N, d_d.data(),
                              S::N);
  const std::vector<Out> d = d_d.download();  // row-major, ld 8
  std::vector<Out> d_col(d.size());
  for (int r = 0; r < S::M; ++r)
    for (int c = 0; c < S::N; ++c) d_col[r + c * S::M] = d[r * S::N + c];
  const tc::CompareResult r =
      tc::compare(S::M, S::N, S::K, d_col.data(), S::M, ref, tc::random_operand_tolerance<Out>());
  if (print) {
    std::printf("D = A * B (%s), row by row:\n", Mma::name);
    for (int row = 0; row < S::M; ++row) {
      for (int c = 0; c < S::N; ++c) std::printf("%8.3f", tc::to_double(d[row * S::N + c]));
      std::printf("\n");
    }
  }
  std::printf("mma.sync.aligned.m16n8k16.row.col.%-18s %s\n", Mma::name, r.summary().c_str());
  return r.passed;
}

// (4b) The same instruction through the chapter's two checks (tc/gemm_check.hpp): D = A * B + C on integer operands,
// exactly, and on random ones. A row-major (op T), B column-major (op N), C and D column-major, in place.
template <typename Mma>
inline tc::VerificationRow single_tile_checks(const tc::CublasHandle& cublas, std::uint64_t seed) {
  using S = tc::MmaM16N8K16;
  using In = typename Mma::Input;
  using Out = typename Mma::Output;
  const tc::GemmProblem p{tc::Op::T, tc::Op::N, S::M, S::N, S::K, S::K, S::K, S::M, 1.0, 1.0};
  tc::ExactCheck<In, Out> exact(cublas, p, seed);
  tc::RandomOperands<In, Out> random(cublas, p, seed + 3);
  auto launch = [](const In* A, const In* B, Out* C) {
    // C and D may be one buffer: each lane reads its C elements before the mma and writes the same ones after it.
    launch_mma_single_tile<Mma, tc::RowMajor, tc::ColMajor, tc::ColMajor>(S::M, S::N, S::K, A, S::K, B, S::K, C, S::M,
                                                                          C, S::M);
  };
  return {std::string("m16n8k16.row.col.") + Mma::name, tc::check_gemm(exact, random, launch), p.alpha};
}

// (5) The probe, for one variant: does the hardware agree with the formulas?
template <typename Mma>
inline bool probe(bool print_recovered) {
  using S = tc::MmaM16N8K16;
  const MmaProbeResult p = probe_mma_m16n8k16<Mma>();
  const bool a_ok = p.a == tc::mma_m16n8k16_map(tc::MmaOperand::A);
  const bool b_ok = p.b == tc::mma_m16n8k16_map(tc::MmaOperand::B);
  const bool c_ok = p.c_kept == tc::kWarpSize * S::kElemsC;
  std::printf("%-18s %zu outputs, %d differ from the formulas' prediction; recovered A %s, B %s the formulas; %d/%d C "
              "registers kept their lane and register in D\n",
              Mma::name, p.measured.size(), p.mismatches, a_ok ? "=" : "!=", b_ok ? "=" : "!=", p.c_kept,
              tc::kWarpSize * S::kElemsC);
  if (print_recovered) {
    std::printf("recovered A (%s), measured: lane l's a_i holds A(row, col)\n", Mma::name);
    std::fputs(p.a.format_lane_list("a").c_str(), stdout);
  }
  return p.mismatches == 0 && a_ok && b_ok && c_ok;
}

// The WMMA 16x16x16 shape for chapter 01's probe (tc/wmma_probe.cuh).
struct Wmma16x16x16 {
  static constexpr int M = 16, N = 16, K = 16;
};

// (5b) Chapter 01's measured WMMA fragments next to the m16n8k16 formulas.
inline bool compare_with_wmma() {
  using namespace nvcuda;
  const tc::LaneMap a = tc::probe_wmma_fragment<wmma::matrix_a, Wmma16x16x16, tc::RowMajor>();
  const tc::LaneMap b = tc::probe_wmma_fragment<wmma::matrix_b, Wmma16x16x16, tc::ColMajor>();
  const tc::LaneMap c = tc::probe_wmma_fragment<wmma::accumulator, Wmma16x16x16, tc::RowMajor>();
  struct Check {
    const char* fragment;
    const tc::LaneMap* map;
    int first, count;
    tc::MmaOperand op;
    int shift;
    const char* meaning;
  };
  const Check checks[] = {
      {"matrix_a row_major", &a, 0, 8, tc::MmaOperand::A, 0, "m16n8k16 A, a0..a7"},
      {"matrix_a row_major", &a, 8, 8, tc::MmaOperand::A, 0, "m16n8k16 A again (a second copy)"},
      {"matrix_b col_major", &b, 0, 4, tc::MmaOperand::B, 0, "m16n8k16 B, b0..b3, columns 0..7"},
      {"matrix_b col_major", &b, 4, 4, tc::MmaOperand::B, 8, "m16n8k16 B, b0..b3, columns 8..15"},
      {"matrix_b col_major", &b, 8, 4, tc::MmaOperand::B, 0, "columns 0..7 again (a second copy)"},
      {"matrix_b col_major", &b, 12, 4, tc::MmaOperand::B, 8, "columns 8..15 again"},
      {"accumulator", &c, 0, 4, tc::MmaOperand::C, 0, "m16n8k16 C, c0..c3, columns 0..7"},
      {"accumulator", &c, 4, 4, tc::MmaOperand::C, 8, "m16n8k16 C, c0..c3, columns 8..15"},
  };
  std::printf("%-20s %-9s %-36s %s\n", "WMMA 16x16x16", "elements", "sit where the formulas put", "matching");
  bool all = true;
  for (const Check& ch : checks) {
    const int matches = count_wmma_matches(*ch.map, ch.first, ch.count, ch.op, ch.shift);
    const int total = tc::kWarpSize * ch.count;
    const std::string elements = "x[" + std::to_string(ch.first) + ".." + std::to_string(ch.first + ch.count - 1) + "]";
    std::printf("%-20s %-9s %-36s %d/%d\n", ch.fragment, elements.c_str(), ch.meaning, matches, total);
    all &= matches == total;
  }
  std::printf("num_elements: matrix_a %d, matrix_b %d, accumulator %d\n", a.slots(), b.slots(), c.slots());
  return all;
}
