// Chapter 01: one warp, one tile, nvcuda::wmma.
//
// Read top to bottom: (1) set up random tiles and a CPU reference for each WMMA fp16 shape, (2) check for a GPU,
// (3) run one warp per tile on the Tensor Cores and verify against the reference, (4) time one launch, (5) probe
// which tile element each lane's fragment register holds, (6) summarise. Each step's code is in explain.cuh.
// Exit codes: README.md, "Exit codes".
#include "chapter_config.hpp"  // tc::chapter::kMinSm, from tc_add_chapter in the top-level CMakeLists.txt
#include "explain.cuh"
#include "wmma_single_tile.cuh"

#include "tc/arch_guard.cuh"
#include "tc/cli.hpp"
#include "tc/device.hpp"
#include "tc/main.hpp"
#include "tc/memory.hpp"

#include <cstdio>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace {

const std::vector<std::string> kShapes = {"16x16x16", "32x8x16", "8x32x16"};

// Calls f(Shape{}) for each tile shape the --shape/--probe selection names, in the order of kShapes.
template <typename F>
void for_each_shape(const std::string& selection, F&& f) {
  if (selection == "all" || selection == "16x16x16") f(Shape16x16x16{});
  if (selection == "all" || selection == "32x8x16") f(Shape32x8x16{});
  if (selection == "all" || selection == "8x32x16") f(Shape8x32x16{});
}

}  // namespace

int main(int argc, char** argv) {
  return tc::run_main([&] {
    tc::Cli cli("01_wmma_single_tile", "One warp computes D = A * B + C for one tile with nvcuda::wmma, then probes "
                                       "which tile element each lane's fragment holds.");
    std::vector<std::string> shape_choices = kShapes;
    shape_choices.push_back("all");
    std::vector<std::string> probe_choices = shape_choices;
    probe_choices.push_back("off");
    cli.add_choice("shape", "all", shape_choices, "tile shapes to compute and verify")
        .add_choice("probe", "16x16x16", probe_choices, "tile shapes whose fragment lane maps to measure and print")
        .add_choice("fill", "integer", {"integer", "real"},
                    "integer: values in [-4, 4], exact in fp32, checked exactly; real: [-1, 1), K-scaled tolerance")
        .add_int("seed", 2026, "random seed", 0)
        .add_int("warmup", 10, "untimed launches before timing", 0)
        .add_int("repeats", 200, "timed launches (median reported)")
        .add_string("svg", "", "also write each probed lane map as an SVG figure into this folder");
    if (!cli.parse(argc, argv)) return tc::kExitOk;
    tc::require_kernel_image(tc::chapter::kArchitectures);  // a build without code for this GPU stops here, exit 5
    const std::string shapes = cli.get_choice("shape");
    const std::string probes = cli.get_choice("probe");
    const tc::Fill fill = cli.get_choice("fill") == "integer" ? tc::Fill::Integer : tc::Fill::Real;
    const auto seed = static_cast<std::uint64_t>(cli.get_int("seed"));

    tc::print_run_header("Chapter 01: one warp, one tile, nvcuda::wmma", "01_wmma_single_tile", argc, argv);

    // (1) Set up on the host: this part runs on any machine.
    std::tuple<std::optional<Tile<Shape16x16x16>>, std::optional<Tile<Shape32x8x16>>,
               std::optional<Tile<Shape8x32x16>>>
        tiles;
    for_each_shape(shapes, [&](auto shape) {
      using Shape = decltype(shape);
      std::get<std::optional<Tile<Shape>>>(tiles) = set_up<Shape>(seed, fill);
    });
    auto tile_of = [&](auto shape) -> const auto& { return *std::get<std::optional<Tile<decltype(shape)>>>(tiles); };

    // (2) Everything below needs a GPU of SM >= 7.5; without one this exits 77 ("skipped").
    std::printf("\n");
    tc::require_sm(tc::chapter::kMinSm, "chapter 01 (WMMA kernels)");
    tc::require_memory("01_wmma_single_tile",
                       tile_memory<Shape16x16x16>() + tile_memory<Shape32x8x16>() + tile_memory<Shape8x32x16>());

    // (3) Run and verify.
    bool all_ok = true;
    for_each_shape(shapes, [&](auto shape) { all_ok &= run_and_verify(tile_of(shape), fill); });

    // (4) Time one launch per shape.
    std::printf("\n== timing: one tile per launch ==\n");
    for_each_shape(shapes, [&](auto shape) {
      time_one_launch(tile_of(shape), static_cast<int>(cli.get_int("warmup")), static_cast<int>(cli.get_int("repeats")));
    });
    std::printf("A tile is 2*M*N*K = 8192 FLOP: the time above is launch overhead, not tensor-core work. Chapter 02\n"
                "gives each launch a whole GEMM.\n");

    // (5) Probe the fragment layouts.
    std::vector<std::string> copies;
    if (probes != "off") {
      for_each_shape(probes,
                     [&](auto shape) { all_ok &= probe_shape<decltype(shape)>(copies, cli.get_string("svg")); });
    }

    // (6) Summarise.
    if (!copies.empty()) {
      std::printf("\n== summary: copies of each tile element across the warp's registers ==\n");
      for (const std::string& line : copies) std::printf("%s\n", line.c_str());
    }
    std::printf("\n%s\n", all_ok ? "RESULT: all tiles match the reference" : "RESULT: MISMATCH");
    return all_ok ? tc::kExitOk : tc::kExitMismatch;
  });
}
