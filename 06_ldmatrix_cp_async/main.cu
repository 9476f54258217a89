// Chapter 06: ldmatrix, cp.async and a multi-stage swizzled pipeline -- the tutorial's fastest mma.sync GEMM, one idea
// per step.
//
// Read top to bottom: (1) the command line and the four steps, (2) on the host, what each step changes: the ldmatrix
// addressing, the shared-memory layouts and their bank cost, each step's tile (this part runs on any machine), (3) the
// GPU, (4) ldmatrix probed against tc/layouts/ldmatrix.hpp, (5) the mma.sync ceiling, (6) every step at every size,
// verified and timed beside cuBLAS by the driver (tc/gemm_driver.hpp), (7) each kernel's registers and shared memory,
// (8) the verdict. Exit codes: README.md, "Exit codes".
#include "ldmatrix_probe.cuh"
#include "mma_ceiling.cuh"
#include "step1_ldmatrix.cuh"
#include "step2_cp_async.cuh"
#include "step3_multistage.cuh"
#include "tools/figures.hpp"

#include "tc/chapter_driver.cuh"
#include "tc/gemm_driver.hpp"
#include "tc/layout_maps.hpp"
#include "tc/layouts/ldmatrix.hpp"
#include "tc/layouts/smem_banks.hpp"
#include "tc/main.hpp"

#include <cstdio>
#include <string>

namespace {

// The steps, in teaching order, as the driver and the tables see them: (name, kernel, tile).
template <typename F>
void for_each_step(F&& f) {
  f(LdsmGemm<Step1Ldmatrix, Step1Tile>{}, "padded +16 B, registers");
  f(LdsmGemm<Step2CpAsync, Step2Tile>{}, "padded +16 B, cp.async");
  f(LdsmGemm<Step3Multistage, Step3Tile>{}, "swizzled, cp.async");
  f(LdsmGemm<Step4Tuned, Step4Tile>{}, "swizzled, cp.async");
}

// (2) What each step changes, on the host.
template <typename Tile>
int a_phase_wavefronts() {  // one ldmatrix.x4 of A at (row 0, k 0) from the kernel's own offsets: its 4 phases
  std::vector<std::int64_t> rows;
  for (int lane = 0; lane < tc::kWarpSize; ++lane)
    rows.push_back(std::int64_t(Tile::a_ldmatrix_offset(0, 0, lane)) * int(sizeof(__half)));
  return tc::ldmatrix_cost(rows).wavefronts;
}

void explain(const tc::RunOptions& o) {
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
  if (!o.svg_dir.empty()) {
    tc::write_figures(o.svg_dir, chapter_figures());
  }
}

// (4) The probe: one ldmatrix variant against the layout functions.
template <int Num, bool Trans>
bool probe_one() {
  const tc::LaneMap measured = probe_ldmatrix<Num, Trans>();
  const tc::LaneMap predicted = tc::ldmatrix_map(Num, Trans);
  int differ = 0;
  for (int lane = 0; lane < tc::kWarpSize; ++lane)
    for (int e = 0; e < 2 * Num; ++e) differ += measured.at(lane, e) != predicted.at(lane, e);
  std::printf("ldmatrix.x%d%-6s %2d lanes x %d elements: %d differ from tc::ldmatrix_map -> %s\n", Num,
              Trans ? ".trans" : "", tc::kWarpSize, 2 * Num, differ, differ == 0 ? "match" : "MISMATCH");
  return differ == 0;
}

}  // namespace

int main(int argc, char** argv) {
  return tc::run_main([&] {
    // (1) The command line (the driver's flags; the default statistic rests the GPU before every timing), and the
    // steps, fp16 in, fp32 accumulate, A row-major, B column-major: one group, one set of operands per size.
    tc::DriverConfig config{tc::this_chapter(), "Chapter 06: ldmatrix, cp.async and a multi-stage swizzled pipeline",
                            "ldmatrix + cp.async + a multi-stage swizzled pipeline: four mma.sync GEMM steps (fp16 in, "
                            "fp32 accumulate, A row-major, B column-major) timed against cuBLAS and the mma.sync "
                            "ceiling.",
                            "write the chapter's figures (as 06_figures does) into this folder"};
    config.default_sizes = "4096,8192";
    config.default_repeats = 20;
    config.rest_flag = true;
    tc::GemmDriver driver(config);
    if (!driver.parse(argc, argv)) return tc::kExitOk;
    tc::DriverGroup<__half, float> steps{tc::F16F32::name, tc::Op::T, tc::Op::N, {}};
    for_each_step([&](auto gemm, const char*) { steps.kernels.push_back(tc::driver_kernel<decltype(gemm)>()); });
    driver.add(steps);

    // (2) Explain, on the host. (3) Everything after needs a GPU of SM >= 8.0 and the memory: else exit 77 or 6.
    explain(driver.options());
    driver.require_gpu("chapter 06 (cp.async and mma.sync kernels)");

    // (4) The probe.
    std::printf("== probe: every ldmatrix variant on a coordinate-encoded tile (ldmatrix_probe.cuh) ==\n");
    bool all_ok = probe_one<1, false>() & probe_one<2, false>() & probe_one<4, false>();
    all_ok &= probe_one<1, true>() & probe_one<2, true>() & probe_one<4, true>();

    // (5) The ceiling, in this process: the table reports each step's share of it.
    const tc::RunOptions& o = driver.options();
    const MmaCeiling ceiling = measure_mma_ceiling(o.warmup, o.repeats);
    std::printf("\n== the mma.sync ceiling (mma_ceiling.cuh): %d warps per SM, %d independent m16n8k16 chains each, "
                "operands in registers ==\n%.1f TFLOP/s (median of %d launches, %.3f ms each)\n",
                MmaCeiling::kBlocksPerSm * MmaCeiling::kThreads / tc::kWarpSize, MmaCeiling::kChains, ceiling.tflops,
                o.repeats, ceiling.median_ms);
    driver.set_ceiling(ceiling.tflops);

    // (6) Every step at every size: verified, timed, tabled.
    all_ok &= driver.run();

    // (7) What each kernel costs in registers and shared memory.
    std::printf("\n== kernel resources (cudaFuncGetAttributes) ==\n%-14s %10s %12s %12s\n", "kernel", "registers",
                "shared (B)", "spills (B)");
    for_each_step([](auto gemm, const char*) {
      using G = decltype(gemm);
      const tc::KernelResources r = tc::kernel_resources(G::Step::template kernel<typename G::Tile>());
      std::printf("%-14s %10d %12d %12d\n", G::name, r.registers, G::Tile::kSmemBytes, r.spill_bytes);
    });

    // (8) The verdict.
    return tc::GemmDriver::finish(all_ok);
  });
}
