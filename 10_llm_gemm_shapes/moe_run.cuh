// Chapter 10 -- the mixture-of-experts table: step 6's grouped kernel on the issue's four configurations (8 or 64
// experts, each expert's weight one of Mixtral-8x7B's: (N, K) = (14336, 4096), as its gate or up, or (4096, 14336),
// as its down), 4096 tokens routed top-2 (8192 rows) by moe::zipf_routing, each verified group by group and timed
// beside cublasGemmGroupedBatchedEx (tc/cublas_grouped.hpp), one group an expert, with the L2 flushed; print_moe
// prints the table.
// Layouts: as step 6 (step6_grouped.cuh): the experts' weights stacked, experts x N rows of K (K contiguous); the
// routed rows sorted by expert, rows x K; y^T column-major N x rows (ldc = N), group g's columns first_row[g] ...
// Checks: two operand sets over the whole stacked layer, run through one launch each: integer operands, whose every
// group must match its fp64 reference exactly, and reals in [-1, 1), each group within tc::compare's bound and the
// statistical RMS bound of its own K (tc/device_gemm_check.cuh), the reference of each group its own DGEMM.
// Errors: tc::CudaError, and those of the launchers.
#pragma once

#include "grouped_plan.hpp"
#include "moe_routing.hpp"
#include "step2_small_m.cuh"
#include "step6_grouped.cuh"

#include "tc/check.hpp"
#include "tc/cublas_grouped.hpp"
#include "tc/device_buffer.hpp"
#include "tc/device_gemm_check.cuh"
#include "tc/flushed_timing.cuh"
#include "tc/gemm_check.hpp"
#include "tc/text_table.hpp"

#include <cuda_bf16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

// One configuration of the table: an expert's weight, N x K, and how many experts share the routed rows.
struct MoeConfig {
  int experts = 8;
  int n = 14336, k = 4096;
};

inline constexpr MoeConfig kMoeConfigs[] = {{8, 14336, 4096}, {8, 4096, 14336}, {64, 14336, 4096}, {64, 4096, 14336}};
inline constexpr int kMoeTokens = 4096, kMoeTopK = 2, kMoeSeed = 2026;
inline constexpr double kMoeZipf = 1.2;

// [doc:step6_launch]
// Step 6's tile width for a layer: the widest of 64, 128 and 256 that the rows of an average non-empty group fill.
// Wider streams each expert's weights fewer times (once per column of tiles), but a tile past its group's rows
// multiplies columns it never stores; narrower than 64 streams the weights once per 32 rows or fewer. Measured on
// an H100 at both 64-expert layers (130 rows a group on average), 128 beat 256. Host, pure.
inline int step6_block_n(const std::vector<int>& sizes) {
  int rows = 0, busy = 0;
  for (int m : sizes) rows += m, busy += m > 0 ? 1 : 0;
  const int average = busy > 0 ? rows / busy : 0;
  return average >= 256 ? 256 : average >= 128 ? 128 : 64;
}

// Step 6 at one layer: the grouped kernel at step6_block_n. C_g = alpha W_g x_g^T + beta C_g for every group, in the
// layout above. Preconditions and errors: as launch_grouped.
inline void launch_step6(const std::vector<int>& sizes, int n, int k, float alpha, const __nv_bfloat16* W, int lda,
                         const __nv_bfloat16* x, int ldb, float beta, __nv_bfloat16* C, int ldc,
                         cudaStream_t stream) {
  switch (step6_block_n(sizes)) {
    case 64: return launch_grouped<64>(sizes, n, k, alpha, W, lda, x, ldb, beta, C, ldc, stream);
    case 128: return launch_grouped<128>(sizes, n, k, alpha, W, lda, x, ldb, beta, C, ldc, stream);
    default: return launch_grouped<256>(sizes, n, k, alpha, W, lda, x, ldb, beta, C, ldc, stream);
  }
}
// [/doc:step6_launch]

// A layer's operands on the device, filled by tc::fill_hashed (integer_max 0: reals in [-1, 1)), and y, poisoned.
struct MoeOperands {
  std::vector<int> sizes;
  int n = 0, k = 0, rows = 0;
  tc::DeviceBuffer<__nv_bfloat16> w, x, y;
  MoeOperands(const std::vector<int>& group_sizes, int n_, int k_, std::uint64_t seed, int integer_max)
      : sizes(group_sizes), n(n_), k(k_) {
    for (int m : sizes) rows += m;
    w = tc::DeviceBuffer<__nv_bfloat16>(sizes.size() * std::size_t(n) * k);
    x = tc::DeviceBuffer<__nv_bfloat16>(std::size_t(rows) * k);
    y = tc::DeviceBuffer<__nv_bfloat16>(std::size_t(rows) * n);
    tc::fill_hashed(w.data(), w.size(), seed, integer_max);
    tc::fill_hashed(x.data(), x.size(), seed + 1, integer_max);
    y.poison();  // an element no group writes is NaN, and fails its check
  }
  const __nv_bfloat16* w_of(int g) const { return w.data() + std::size_t(g) * n * k; }
  const __nv_bfloat16* x_from(int row) const { return x.data() + std::size_t(row) * k; }
  __nv_bfloat16* y_from(int row) { return y.data() + std::size_t(row) * n; }
};

// The worst group's verdict of a check over all groups: passed only if every group passed.
struct MoeCheck {
  tc::CompareResult worst;
  int worst_group = -1;
  bool passed = true;
};

// Runs launch(operands) once (it must write y for every group), then checks each non-empty group against its own
// fp64 reference: exactly (integer operands) or within the random-operand bounds. Errors: tc::CudaError.
template <typename Launch>
MoeCheck check_moe_groups(const tc::CublasHandle& cublas, MoeOperands& o, bool exact, Launch&& launch) {
  launch(o);
  tc::check_launch();
  TC_CHECK(cudaDeviceSynchronize());
  MoeCheck all;
  double worst_ratio = -1.0;
  for (int g = 0, row = 0; g < int(o.sizes.size()); row += o.sizes[g], ++g) {
    if (o.sizes[g] == 0) continue;
    const tc::GemmProblem p = tc::GemmProblem::tight(tc::Op::T, tc::Op::N, o.n, o.sizes[g], o.k, 1.0, 0.0);
    const tc::DeviceGemmReference ref =
        tc::device_reference_fp64<__nv_bfloat16, __nv_bfloat16>(cublas, p, o.w_of(g), o.x_from(row), nullptr);
    const tc::Tolerance tol = exact ? tc::Tolerance::exact_operands<__nv_bfloat16>()
                                    : tc::random_operand_tolerance<__nv_bfloat16>();
    const tc::ComparePartial found = tc::compare_partial_on_device(p.m, p.n, p.k, o.y_from(row), o.n,
                                                                   ref.value.data(), ref.magnitude.data(), ref.ld, tol);
    tc::CompareResult r = tc::to_compare_result(found, p.m);
    if (!exact) {  // the statistical bound, as tc::DeviceRandomOperands::check makes it
      tc::StatisticalInputs s{p.k, p.alpha, tc::ElementTraits<__nv_bfloat16>::unit_roundoff, tol.u_acc, tol.u_out,
                              0x1p-53, tc::rms_of_products_on_device(p, o.w_of(g), o.x_from(row)), 0.0};
      s.rms_reference = found.checked > 0 ? std::sqrt(found.reference_squares / double(found.checked)) : 0.0;
      r.rms_bound = tc::statistical_rms_bound(s);
      r.passed = r.passed && r.rms_error <= r.rms_bound;
    }
    all.passed = all.passed && r.passed;
    const double ratio = !r.passed ? 1e300 : r.worst_bound > 0.0 ? r.worst_error / r.worst_bound : 0.0;
    if (ratio > worst_ratio) worst_ratio = ratio, all.worst = r, all.worst_group = g;
  }
  return all;
}

// cuBLAS's grouped GEMM over the same layer: one problem a group (empty ones left out by CublasGroupedGemm).
inline tc::CublasGroupedGemm<__nv_bfloat16> moe_yardstick(const tc::CublasHandle& cublas, MoeOperands& o) {
  std::vector<tc::CublasGroupedGemm<__nv_bfloat16>::Problem> problems;
  for (int g = 0, row = 0; g < int(o.sizes.size()); row += o.sizes[g], ++g)
    problems.push_back({o.n, o.sizes[g], o.k, o.w_of(g), o.k, o.x_from(row), o.k, o.y_from(row), o.n});
  return tc::CublasGroupedGemm<__nv_bfloat16>(cublas, tc::Op::T, tc::Op::N, problems, 1.0f, 0.0f);
}

// One row of the MoE table.
struct MoeResult {
  MoeConfig config;
  std::vector<int> sizes;
  tc::GemmVerdict verdict;  // the worst group's of each check
  int worst_exact_group = -1, worst_random_group = -1;
  double ms = 0.0, cublas_ms = 0.0;
  int tiles = 0, blocks_per_sm = 1;
};

// The device memory a configuration needs at its peak: one operand set, and one group's fp64 reference while it is
// made (its weight and tokens widened, its value and magnitude). Errors: none.
inline tc::MemoryNeed moe_memory(const MoeConfig& c, int rows) {
  const double set = 2.0 * (double(c.experts) * c.n * c.k + double(rows) * c.k + double(rows) * c.n);
  const double group = 8.0 * (double(c.n) * c.k + double(rows) * c.k) + 16.0 * double(c.n) * rows;
  return tc::MemoryNeed{0, std::uint64_t(set + group)};
}

// Verifies step 6 at one configuration (both checks, every group), then times it and cuBLAS's grouped GEMM on the
// random operands with `timing` (L2 flushed). sizes: the routed rows of each expert. Errors: as check_moe_groups and
// the launchers.
inline MoeResult run_moe(const tc::CublasHandle& cublas, const MoeConfig& c, const std::vector<int>& sizes,
                         std::uint64_t seed, const tc::FlushedTiming& timing, bool yardstick) {
  MoeResult r;
  r.config = c;
  r.sizes = sizes;
  auto step6 = [&](MoeOperands& o) {
    launch_step6(o.sizes, o.n, o.k, 1.0f, o.w.data(), o.k, o.x.data(), o.k, 0.0f, o.y.data(), o.n, nullptr);
  };
  {
    const int range = tc::exact_fill_max<__nv_bfloat16>(c.k);
    MoeOperands exact(sizes, c.n, c.k, seed + 10, range);
    const MoeCheck e = check_moe_groups(cublas, exact, true, step6);
    r.verdict.exact = e.worst, r.worst_exact_group = e.worst_group;
    r.verdict.exact.passed = e.passed;
    r.verdict.exact_range = "[-" + std::to_string(range) + ", " + std::to_string(range) + "]";
  }
  MoeOperands random(sizes, c.n, c.k, seed, 0);
  const MoeCheck m = check_moe_groups(cublas, random, false, step6);
  r.verdict.random = m.worst, r.worst_random_group = m.worst_group;
  r.verdict.random.passed = m.passed;
  r.ms = timing.median_ms([&] { step6(random); });
  if (yardstick) {
    const tc::CublasGroupedGemm<__nv_bfloat16> grouped = moe_yardstick(cublas, random);
    r.cublas_ms = timing.median_ms([&] { grouped.run(); });
  }
  const int block_n = step6_block_n(sizes);
  r.tiles = grouped::make_plan(sizes, c.n, 64, block_n).tiles();
  r.blocks_per_sm = small_m_blocks_per_sm(block_n);
  return r;
}

// The mixture-of-experts table: a row a configuration, step 6 against cuBLAS's grouped GEMM.
inline void print_moe(const std::vector<MoeResult>& rows, const tc::FlushedTiming& timing, double flush_bytes) {
  std::printf("\n== step 6, grouped GEMM for mixture-of-experts: %d tokens, top-%d, %d routed rows sorted by expert, "
              "y_g^T = W_g x_g^T per expert (moe_run.cuh); median of %d launches after %d warm-up, the L2 flushed "
              "before every launch by a read of %.0f MiB ==\n",
              kMoeTokens, kMoeTopK, kMoeTokens * kMoeTopK, timing.repeats, timing.warmup, flush_bytes / (1 << 20));
  tc::Table t;
  for (const char* h : {"experts", "N", "K"}) t.column(h, true);
  t.column("rows a group", false);
  for (const char* h : {"empty", "tiles", "ms", "TFLOP/s", "cuBLAS grouped ms", "% cuBLAS grouped"}) t.column(h, true);
  t.column("verdict", false);
  for (const MoeResult& r : rows) {
    int rows_all = 0, empty = 0, least = 1 << 30, most = 0;
    for (int m : r.sizes) {
      rows_all += m, empty += m == 0 ? 1 : 0;
      if (m > 0) least = std::min(least, m);
      most = std::max(most, m);
    }
    const double tflops = 2.0 * rows_all * double(r.config.n) * r.config.k / (r.ms * 1e-3) / 1e12;
    t.row({std::to_string(r.config.experts), std::to_string(r.config.n), std::to_string(r.config.k),
           std::to_string(least) + " to " + std::to_string(most), std::to_string(empty), std::to_string(r.tiles),
           tc::fixed(r.ms, 4), tc::fixed(tflops, 1), r.cublas_ms > 0.0 ? tc::fixed(r.cublas_ms, 4) : "-",
           r.cublas_ms > 0.0 ? tc::fixed(100.0 * r.cublas_ms / r.ms, 1) + "%" : "-",
           r.verdict.passed() ? "PASS" : "FAIL"});
  }
  std::printf("%s", t.format().c_str());
  std::printf("rows a group: the fewest and most rows of a non-empty group; empty: groups with no rows (they have no "
              "tiles, and cuBLAS gets no problem for them); tiles: step 6's 64 x BN tiles over all groups, on a grid "
              "of one block a slot; %% cuBLAS grouped: cublasGemmGroupedBatchedEx's time (one problem a non-empty "
              "group) over step 6's; above 100%%: step 6 is faster\n");
}
