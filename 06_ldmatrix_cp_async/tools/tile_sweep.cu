// 06_tile_sweep: the bounded sweep that chose Step4Tile. Fifteen tiles of step 3's kernel (multistage_gemm_kernel on
// the swizzled layout), compiled ahead, each run on one fp16 -> fp32 problem (m = n = k = --size, A row-major, B
// column-major), checked as the chapter checks (integer operands exactly, random ones against fp64: tc/gemm_check.hpp)
// and timed on the random ones beside cuBLAS's fp16 TN GEMM on the same operands, in the same process, by
// tc::TileSweep (tc/gemm_driver.hpp). Writes CSV to stdout, one line per tile with its registers, spills and shared
// memory, so the choice can be re-made on another GPU; docs/06 renders it as a table.
// Every timing, cuBLAS's included, starts after --rest-ms of idle GPU (tc::rest_gpu says why).
// Usage: 06_tile_sweep [--size 8192] [--repeats 20] [--rest-ms 1500]. Exit codes: README.md, "Exit codes" (1 on any
// mismatch).
#include "step3_multistage.cuh"

#include "tc/chapter_driver.cuh"
#include "tc/dynamic_smem.hpp"
#include "tc/gemm_driver.hpp"
#include "tc/main.hpp"
#include "tc/memory.hpp"

#include <cstdio>
#include <string>

namespace {

// One tile of step 3's kernel, verified and timed.
template <typename Tile>
void sweep_one(tc::TileSweep<__half, float>& sweep) {
  sweep.measure(tc::driver_kernel<LdsmGemm<Step3Multistage, Tile>>(),
                       tc::kernel_resources(multistage_gemm_kernel<Tile>),
                       {Tile::BlockM, Tile::BlockN, Tile::BlockK, Tile::WarpsM, Tile::WarpsN, Tile::Stages,
                        Tile::GroupN, Tile::kThreads, Tile::kSmemBytes});
}

}  // namespace

int main(int argc, char** argv) {
  const tc::ToolConfig config{
      "06_tile_sweep", "Time fifteen tiles of chapter 06's multistage kernel against cuBLAS fp16 TN; CSV to stdout.",
      "mma.sync kernels", 8192, 256, "the largest block tile swept", true};
  return tc::square_tool_main(argc, argv, tc::this_chapter(), config, [](const tc::SquareTool& tool) {
    tc::TileSweep<__half, float> sweep(tool,
                                       "block_m,block_n,block_k,warps_m,warps_n,stages,group_n,threads,smem_bytes");
    // [doc:configs]
    // Warp tiles of 64 x 32 and 64 x 64; block tiles from 128 x 128 to 256 x 128; 32- and 64-deep slices; 3 or 4
    // stages (4 at BlockK = 64 only where it fits in 227 KB); block order plain (GroupN 1) or in groups of 8 and 16
    // block columns. All on the swizzled layout, all with the serpentine mma order.
    using Sw = tc::Swizzled;
    sweep_one<GemmTile<128, 128, 32, 2, 4, 4, Sw>>(sweep);  // step 3's tile
    sweep_one<GemmTile<128, 128, 32, 2, 2, 4, Sw>>(sweep);
    sweep_one<GemmTile<128, 128, 64, 2, 2, 4, Sw>>(sweep);
    sweep_one<GemmTile<64, 256, 32, 1, 4, 4, Sw>>(sweep);
    sweep_one<GemmTile<256, 128, 32, 4, 2, 4, Sw>>(sweep);
    sweep_one<GemmTile<256, 128, 64, 4, 2, 3, Sw>>(sweep);
    sweep_one<GemmTile<128, 256, 32, 2, 4, 3, Sw>>(sweep);
    sweep_one<GemmTile<128, 256, 32, 2, 4, 4, Sw>>(sweep);
    sweep_one<GemmTile<128, 256, 64, 2, 4, 3, Sw>>(sweep);
    sweep_one<GemmTile<128, 256, 32, 2, 4, 3, Sw, 8>>(sweep);
    sweep_one<GemmTile<128, 256, 32, 2, 4, 3, Sw, 16>>(sweep);
    sweep_one<GemmTile<128, 256, 64, 2, 4, 3, Sw, 16>>(sweep);
    sweep_one<GemmTile<128, 256, 64, 2, 4, 4, Sw, 8>>(sweep);
    sweep_one<GemmTile<128, 256, 64, 2, 4, 4, Sw, 16>>(sweep);
    sweep_one<GemmTile<256, 128, 64, 4, 2, 4, Sw, 16>>(sweep);
    // [/doc:configs]
    return sweep.all_passed() ? tc::kExitOk : tc::kExitMismatch;
  });
}
