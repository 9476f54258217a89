// 04_tile_sweep: the bounded sweep that chose DefaultImmaTile. Eleven tile configurations, compiled ahead, each
// run on one s8 problem (m = n = k = --size, A row-major, B column-major), checked exactly on two full-range operand
// sets (tc/gemm_check.hpp) and timed beside cuBLAS's int8 TN GEMM on the same operands, in the same process, by
// tc::TileSweep (tc/gemm_driver.hpp). Writes CSV to stdout:
// one line per configuration, with its registers and shared memory, so the choice can be re-made on another GPU.
// Usage: 04_tile_sweep [--size 4096] [--repeats 20]. Exit codes: README.md, "Exit codes" (1 on any mismatch).
#include "imma_shared_gemm.cuh"

#include "tc/chapter_driver.cuh"
#include "tc/dynamic_smem.hpp"
#include "tc/gemm_driver.hpp"
#include "tc/main.hpp"
#include "tc/memory.hpp"

#include <cstdio>
#include <string>

namespace {

// One configuration, verified (both operand sets are full-range integers, so both checks are exact) and timed.
template <typename Tile>
void sweep_one(tc::TileSweep<std::int8_t, std::int32_t>& sweep) {
  sweep.measure(tc::driver_kernel<ImmaSharedGemm<tc::WmmaS8, Tile>>(),
                       tc::kernel_resources(imma_shared_gemm_kernel<tc::WmmaS8, Tile>),
                       {Tile::BlockM, Tile::BlockN, Tile::BlockK, Tile::WarpsM, Tile::WarpsN, Tile::Stages, Tile::Skew,
                        Tile::kThreads, Tile::kSmemBytes});
}

}  // namespace

int main(int argc, char** argv) {
  const tc::ToolConfig config{"04_tile_sweep",
                              "Time eleven INT8 IMMA tile configurations against cuBLAS int8 TN; CSV to stdout.",
                              "INT8 IMMA kernels", 4096, 256, "the largest block tile swept", false};
  return tc::square_tool_main(argc, argv, tc::this_chapter(), config, [](const tc::SquareTool& tool) {
    tc::TileSweep<std::int8_t, std::int32_t> sweep(tool, "block_m,block_n,block_k,warps_m,warps_n,stages,skew,threads,"
                                                     "smem_bytes");
    // Block tiles of 64 x 32 and 64 x 64 per warp, 64- and 128-byte stages, 3 to 5 stages, all with the chosen skew.
    sweep_one<ImmaTile<128, 128, 64, 2, 2, 3, 16>>(sweep);
    sweep_one<ImmaTile<128, 128, 64, 2, 2, 4, 16>>(sweep);
    sweep_one<ImmaTile<128, 128, 64, 2, 2, 5, 16>>(sweep);
    sweep_one<ImmaTile<128, 128, 128, 2, 2, 3, 16>>(sweep);
    sweep_one<ImmaTile<128, 128, 64, 2, 4, 4, 16>>(sweep);
    sweep_one<ImmaTile<128, 64, 64, 2, 1, 4, 16>>(sweep);
    sweep_one<ImmaTile<64, 128, 64, 1, 2, 4, 16>>(sweep);
    sweep_one<ImmaTile<128, 256, 64, 2, 4, 3, 16>>(sweep);
    sweep_one<ImmaTile<128, 256, 64, 2, 4, 4, 16>>(sweep);
    sweep_one<ImmaTile<256, 128, 64, 4, 2, 3, 16>>(sweep);
    sweep_one<ImmaTile<128, 256, 128, 2, 4, 3, 16>>(sweep);
    return sweep.all_passed() ? tc::kExitOk : tc::kExitMismatch;
  });
}
