// Chapter 04's host sections: what main.cu prints before any kernel runs, from the kernel's own tile types.
//   - the shared-memory plan of the default tile;
//   - the bank wavefronts of one stage and of the whole kernel, per skew (the bank calculator on the kernel's own
//     addresses, tc/layouts/smem_banks.hpp), and one fragment load's banks lane by lane;
//   - the longest K whose int32 sums cannot overflow.
// Shapes: the run's first size (o.sizes[0]). Units: bytes, wavefronts, K steps. Errors: tc::UsageError when a figure
// cannot be written. Source: CUDA C++ Programming Guide, "Shared Memory" (banks); PTX ISA, "ldmatrix" (its phases).
#pragma once

#include "imma_shared_gemm.cuh"
#include "smem_plan.hpp"

#include "tc/gemm_driver.hpp"  // tc::RunOptions
#include "tc/layouts/smem_banks.hpp"
#include "tc/main.hpp"         // tc::write_text_file

#include <cstdint>
#include <cstdio>
#include <string>

// Calls f(Tile{}) for the default tile with each skew the --skew selection names: 0 (none), 16 (the chosen one: the
// bank calculator's zero), 32 (NVIDIA's immaTensorCoreGemm sample's SKEW_UINT8).
template <typename F>
void for_each_skew(const std::string& selection, F&& f) {
  if (selection == "all" || selection == "0") f(DefaultImmaTile<0>{});
  if (selection == "all" || selection == "16") f(DefaultImmaTile<16>{});
  if (selection == "all" || selection == "32") f(DefaultImmaTile<32>{});
}

// (2) Explain: the plan, the banks, the overflow bound.
inline void explain(const tc::RunOptions& o) {
  using T = DefaultImmaTile<16>;
  std::printf("\n== shared-memory plan (host arithmetic: ImmaTile) ==\n");
  std::printf("block tile %d x %d of C, %d warps of %d x %d (%d x %d fragments of 16 x 16 each), BlockK %d bytes = %d "
              "K steps per stage,\n%d stages; a stage is %d lines (%d rows of A, then %d columns of B) of %d bytes, "
              "each line ld = %d + skew bytes apart\n",
              T::BlockM, T::BlockN, T::kThreads / tc::kWarpSize, T::WarpM, T::WarpN, T::FragsM, T::FragsN, T::BlockK,
              T::BlockK / 16, T::Stages, T::kLines, T::BlockM, T::BlockN, T::BlockK, T::BlockK);
  if (!o.svg_dir.empty()) tc::write_text_file(o.svg_dir + "/04_smem_plan.svg", smem_plan_svg<T>());

  std::printf("\n== bank wavefronts per stage of one block, by skew (bank calculator: tc/layouts/smem_banks.hpp) ==\n");
  std::printf("%4s %5s %11s %11s %14s %11s %8s %14s %11s %8s\n", "skew", "ld", "stage bytes", "smem bytes",
              "fragment loads", "wavefronts", "extra", "16-byte copies", "wavefronts", "extra");
  for_each_skew("all", [&](auto tile) {
    using Tile = decltype(tile);
    const StageCost c = stage_cost<Tile>();
    std::printf("%4d %5d %11d %11d %14d %11d %8d %14d %11d %8d\n", Tile::Skew, Tile::kLd, Tile::kStageBytes,
                Tile::kSmemBytes, c.fragment_loads, c.load_wavefronts, c.load_conflicts, c.copies, c.copy_wavefronts,
                c.copy_conflicts);
  });
  std::printf("A fragment load is one LDSM of 16 lines x 16 bytes: 2 wavefronts when conflict-free. A warp's 16-byte "
              "copy is 4 phases of 8 lanes:\n4 wavefronts when conflict-free. extra = wavefronts beyond those "
              "minimums (the bank conflicts).\n");
  // The whole kernel at the first size: every block runs ceil(k / BlockK) stages (ncu counts the same launch).
  const tc::GemmShape& s = o.sizes.front();
  for_each_skew("all", [&](auto tile) {
    using Tile = decltype(tile);
    const StageCost c = stage_cost<Tile>();
    const double stages = double((s.m + Tile::BlockM - 1) / Tile::BlockM) * ((s.n + Tile::BlockN - 1) / Tile::BlockN) *
                          ((s.k + Tile::BlockK - 1) / Tile::BlockK);
    std::printf("skew %2d, whole kernel at %dx%dx%d: %.0f LDSM, %.0f wavefronts, %.0f extra (%.0f of them in the "
                "fragment loads)\n",
                Tile::Skew, s.m, s.n, s.k, stages * c.fragment_loads, stages * (c.load_wavefronts + c.copy_wavefronts),
                stages * (c.load_conflicts + c.copy_conflicts), stages * c.load_conflicts);
  });

  std::printf("\n== one fragment load, lines 0..15 at k = 0: the bank each lane's 16 bytes start in ==\n");
  for_each_skew("all", [&](auto tile) {
    using Tile = decltype(tile);
    const tc::AccessCost c = tc::ldmatrix_cost(fragment_rows<Tile>(0, false, 0, 0));
    std::printf("skew %2d:", Tile::Skew);
    for (const tc::PhaseCost& p : c.phases)
      for (const tc::SmemAccess& a : p.accesses) std::printf(" %2d", tc::smem_bank(a.address));
    std::printf("  -> %d wavefronts, %d extra\n", c.wavefronts, c.conflicts);
    if (!o.svg_dir.empty()) {
      tc::write_text_file(o.svg_dir + "/04_banks_skew" + std::to_string(Tile::Skew) + ".svg",
                 tc::bank_svg("fragment load, skew " + std::to_string(Tile::Skew) + " (ld " +
                                  std::to_string(Tile::kLd) + " bytes)",
                              c));
    }
  });

  std::printf("\n== overflow: the longest K whose int32 sums cannot overflow with full-range inputs, alpha 1, beta 0 "
              "==\n");
  std::printf("s8: |a*b| <= 128*128 = 16384, K <= %lld;  u8: a*b <= 255*255 = 65025, K <= %lld\n",
              static_cast<long long>(max_exact_k<std::int8_t>()), static_cast<long long>(max_exact_k<std::uint8_t>()));
  for (const tc::GemmShape& s : o.sizes) {
    if (s.k > max_exact_k<std::uint8_t>()) {
      std::printf("note: k = %d is above the u8 bound; extreme u8 inputs could overflow int32 (the random ones here "
                  "do not come close)\n", s.k);
    }
  }
}
