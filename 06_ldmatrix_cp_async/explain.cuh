// Chapter 06's own section: the steps in teaching order (for_each_step, which main.cu's driver group and resource
// table use too), and what main.cu prints on the host before the GPU runs -- the ldmatrix addressing, the
// shared-memory layouts and their bank cost, each step's tile. Units: bytes, wavefronts. Errors: none. Source: PTX
// ISA, "ldmatrix"; CUDA C++ Programming Guide, "Shared Memory" (banks).
#pragma once

#include "step1_ldmatrix.cuh"
#include "step2_cp_async.cuh"
#include "step3_multistage.cuh"

#include "tc/layout_maps.hpp"
#include "tc/layouts/ldmatrix.hpp"
#include "tc/layouts/smem_banks.hpp"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

// The steps, in teaching order, as the driver and the tables see them: (name, kernel, tile).
template <typename F>
inline void for_each_step(F&& f) {
  f(LdsmGemm<Step1Ldmatrix, Step1Tile>{}, "padded +16 B, registers");
  f(LdsmGemm<Step2CpAsync, Step2Tile>{}, "padded +16 B, cp.async");
  f(LdsmGemm<Step3Multistage, Step3Tile>{}, "swizzled, cp.async");
  f(LdsmGemm<Step4Tuned, Step4Tile>{}, "swizzled, cp.async");
}

// (2) What each step changes, on the host.
template <typename Tile>
inline int a_phase_wavefronts() {  // one ldmatrix.x4 of A at (row 0, k 0) from the kernel's own offsets: its 4 phases
  std::vector<std::int64_t> rows;
  for (int lane = 0; lane < tc::kWarpSize; ++lane)
    rows.push_back(std::int64_t(Tile::a_ldmatrix_offset(0, 0, lane)) * int(sizeof(__half)));
  return tc::ldmatrix_cost(rows).wavefronts;
}

inline void explain() {
  std::printf("\n== ldmatrix.x4: the row each lane points at (tc/layouts/ldmatrix.hpp) ==\n");
  for (const bool b : {false, true}) {
    std::printf(b ? "two B fragments (n 0..15, K along the lines), lane -> (n, k):\n"
                  : "A fragment (16 x 16, K along the lines), lane -> (row, k):\n");
    for (int lane = 0; lane < tc::kWarpSize; ++lane) {
      const tc::Coord s = b ? tc::ldmatrix_x4_b_source(lane) : tc::ldmatrix_x4_a_source(lane);
      std::printf("  %2d->(%2d,%d)%s", lane, s.row, s.col, lane % 8 == 7 ? "\n" : "");
    }
  }
  std::printf("composed with ldmatrix's own lane map, these give exactly the m16n8k16 fragments: A %s, B %s, B from "
              "an N-contiguous tile with .trans %s\n",
              tc::ldmatrix_x4_gives_mma_a() ? "yes" : "NO", tc::ldmatrix_x4_gives_mma_b(false) ? "yes" : "NO",
              tc::ldmatrix_x4_gives_mma_b(true) ? "yes" : "NO");

  std::printf("\n== shared-memory layouts: wavefronts of one ldmatrix.x4 of A (4 phases; 4 is conflict-free) ==\n");
  std::printf("%-34s %d\n", "unpadded 64-byte lines", a_phase_wavefronts<GemmTile<128, 128, 32, 2, 4, 2, tc::Padded<0>>>());
  std::printf("%-34s %d\n", "padded by 16 bytes (steps 1, 2)", a_phase_wavefronts<Step1Tile>());
  std::printf("%-34s %d\n", "XOR-swizzled (steps 3, 4)", a_phase_wavefronts<Step3Tile>());

  std::printf("\n== the steps ==\n%-14s %-13s %-6s %-7s %-10s %-26s\n", "step", "block tile", "warps", "stages",
              "smem (B)", "shared layout, copy");
  for_each_step([](auto gemm, const char* layout) {
    using T = typename decltype(gemm)::Tile;
    const std::string tile = std::to_string(T::BlockM) + "x" + std::to_string(T::BlockN) + "x" + std::to_string(T::BlockK);
    std::printf("%-14s %-13s %-6d %-7d %-10d %-26s\n", decltype(gemm)::name, tile.c_str(), T::kThreads / tc::kWarpSize,
                T::Stages, T::kSmemBytes, layout);
  });
  using T = Step1Tile;
  std::printf("per warp and K step of 16, a %d x %d warp tile (steps 1-3) takes %d + %d ldmatrix.x4 for %d mma.sync; "
              "chapter 05 loaded the same fragments with %d + %d LDS.32\n",
              T::WarpM, T::WarpN, T::TilesM, T::TilesN / 2, T::TilesM * T::TilesN, T::TilesM * tc::MmaM16N8K16::kRegsA,
              T::TilesN * tc::MmaM16N8K16::kRegsB);
}
