// Chapter 02's host sections: what main.cu prints before any kernel runs, from the kernels' own tile types.
//   - reuse: each kernel's global-memory bytes per FLOP, the bytes a whole GEMM loads, and the rate DRAM bandwidth
//     alone would allow (host arithmetic);
//   - the warp-to-tile maps of both kernels (f16), as text and, with --svg, as figures.
// Shapes: the run's first size (o.sizes[0], M x N x K). Units: bytes, FLOP, GB, TFLOP/s. Errors: tc::UsageError when
// a figure cannot be written. Source: CUDA C++ Programming Guide, "Warp Matrix Functions" (the tile shapes).
#pragma once

#include "wmma_tiled_gemm.cuh"

#include "tc/gemm_driver.hpp"  // tc::RunOptions
#include "tc/lane_map.hpp"
#include "tc/main.hpp"         // tc::write_text_file
#include "tc/timer.hpp"
#include "tc/warp_tile_grid.hpp"

#include <cstdio>
#include <type_traits>

// H200 HBM3e bandwidth from NVIDIA's H200 datasheet, an external figure listed in docs/external_figures.md: the rate
// the reuse table divides by.
inline constexpr double kH200DramBytesPerSecond = 4.8e12;

// (2) Explain: global-memory bytes per FLOP. A block (or, in the naive kernel, a warp) that computes a TM x TN tile
// of C loads TM + TN elements of A and B for every step of K and does 2 * TM * TN FLOP with them.
template <typename Kernel>
void print_reuse_row(const tc::RunOptions& o) {
  using P = typename Kernel::Precision;
  // The naive kernel's unit of reuse is one warp's P::M x P::N tile; the block-tiled kernel's is the block tile.
  const int tm = std::is_same_v<Kernel, WmmaNaiveGemm<P>> ? P::M : Kernel::kContract.tile.m;
  const int tn = std::is_same_v<Kernel, WmmaNaiveGemm<P>> ? P::N : Kernel::kContract.tile.n;
  const double bytes_per_flop = double(sizeof(typename P::Input)) * (tm + tn) / (2.0 * tm * tn);
  const double total_bytes = bytes_per_flop * tc::gemm_flops(o.sizes[0].m, o.sizes[0].n, o.sizes[0].k);
  std::printf("%-12s %-10s %4d x %-4d %9.4f %11.1f %14.1f\n", Kernel::name, P::name, tm, tn, bytes_per_flop,
              total_bytes / 1e9, kH200DramBytesPerSecond / bytes_per_flop / 1e12);
}

// The block tile's warp-to-fragment map: fragment (i, j) of the block tile -> the warp computing it. A LaneMap whose
// "lanes" are warps, so the same grid and SVG writers draw it. Uses Tile::warp_origin, as the kernel does.
template <typename P>
tc::LaneMap block_tile_warp_map() {
  using Tile = typename DefaultBlockTile<P>::type;
  tc::LaneMap map(Tile::BlockM / P::M, Tile::BlockN / P::N, Tile::FragsM * Tile::FragsN);
  for (int warp = 0; warp < Tile::kThreads / tc::kWarpSize; ++warp) {
    const tc::Coord origin = Tile::warp_origin(warp);
    for (int i = 0; i < Tile::FragsM; ++i)
      for (int j = 0; j < Tile::FragsN; ++j)
        map.at(warp, i * Tile::FragsN + j) = {origin.row / P::M + i, origin.col / P::N + j};
  }
  return map;
}

// The naive kernel's map for block (0, 0): tile (warp_m, warp_n) -> warp index threadIdx.y * 4 + threadIdx.x / 32.
template <typename P>
tc::LaneMap naive_block_warp_map() {
  using Grid = typename WmmaNaiveGemm<P>::Grid;
  tc::LaneMap map(Grid::kWarpsM, Grid::kWarpsN, 1);
  const dim3 block = Grid::block();
  for (unsigned ty = 0; ty < block.y; ++ty)
    for (unsigned tx = 0; tx < block.x; tx += tc::kWarpSize)
      map.at(int(ty * Grid::kWarpsM + tx / tc::kWarpSize), 0) = tc::warp_tile_of(dim3(0, 0), block, dim3(tx, ty));
  return map;
}

template <typename ForEachKernel>
inline void explain(const tc::RunOptions& o, ForEachKernel&& for_each_selected_kernel) {
  std::printf("\n== reuse: global-memory traffic of each kernel (host arithmetic) ==\n");
  std::printf("%-12s %-10s %-11s %9s %11s %14s\n", "kernel", "type", "C tile", "B/FLOP", "GB loaded",
              "TFLOP/s @4.8TB/s");
  for_each_selected_kernel([&](auto kernel) { print_reuse_row<decltype(kernel)>(o); });
  std::printf("B/FLOP: bytes of A and B loaded from global memory per FLOP; GB loaded: that times 2*M*N*K (caches "
              "can only lower it);\nthe last column is the rate at which DRAM bandwidth alone would cap the kernel "
              "if every load missed the caches.\n");

  std::printf("\n== warp-to-tile maps (f16): which warp computes each 16x16 tile ==\n");
  const tc::LaneMap naive = naive_block_warp_map<tc::WmmaF16>();
  const tc::LaneMap tiled = block_tile_warp_map<tc::WmmaF16>();
  std::printf("naive, one block of 4 x 4 warps (warp = threadIdx.y * 4 + threadIdx.x / 32):\n%s",
              naive.format_grid().c_str());
  std::printf("block-tiled, one 128 x 128 block tile of 8 warps (warp = threadIdx.x / 32):\n%s",
              tiled.format_grid().c_str());
  if (!o.svg_dir.empty()) {
    tc::write_text_file(o.svg_dir + "/02_naive_warp_tiles.svg",
               naive.to_svg("naive: warp per 16x16 tile of C"));
    tc::write_text_file(o.svg_dir + "/02_block_tiled_warp_tiles.svg",
               tiled.to_svg("block-tiled: warp per 16x16 fragment of C"));
  }
}
