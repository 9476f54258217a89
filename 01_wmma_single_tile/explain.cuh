// Chapter 01's sections, in the order main.cu runs them: one tile's set-up and CPU reference (host), its run on the
// Tensor Cores and its check, the timing of one launch, and the probe of every fragment kind and layout.
// Shapes: the WMMA fp16 tiles of wmma_single_tile.cuh (16x16x16, 32x8x16, 8x32x16): A M x K and B K x N fp16, C and
// D M x N fp32, all column-major with minimal ld. Units: elements; microseconds for the timing.
// Errors: tc::CudaError from the GPU parts; tc::UsageError when a figure cannot be written. Source: CUDA C++
// Programming Guide, "Warp Matrix Functions".
#pragma once

#include "wmma_single_tile.cuh"

#include "tc/compare.hpp"
#include "tc/device_buffer.hpp"
#include "tc/main.hpp"  // tc::write_text_file
#include "tc/matrix.hpp"
#include "tc/memory.hpp"
#include "tc/random.hpp"
#include "tc/reference.hpp"
#include "tc/timer.hpp"
#include "tc/wmma_probe.cuh"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

// Prints a small matrix given element access at(r, c) -> double; integers print without decimals.
template <typename At>
inline void print_matrix(const std::string& title, int rows, int cols, bool integer, At&& at) {
  std::printf("%s\n", title.c_str());
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) std::printf(integer ? "%5.0f" : "%7.3f", at(r, c));
    std::printf("\n");
  }
}

// One tile's problem: inputs (column-major, minimal ld), the CPU reference and its error scale.
template <typename Shape>
struct Tile {
  tc::HostMatrix<__half, tc::ColMajor> a{Shape::M, Shape::K};
  tc::HostMatrix<__half, tc::ColMajor> b{Shape::K, Shape::N};
  tc::HostMatrix<float, tc::ColMajor> c{Shape::M, Shape::N};
  std::vector<double> ref = std::vector<double>(Shape::M * Shape::N);
  std::vector<double> mag = std::vector<double>(Shape::M * Shape::N);
};

// (1) Set up: random inputs, C != 0, reference D = A * B + C in double on the CPU.
template <typename Shape>
inline Tile<Shape> set_up(std::uint64_t seed, tc::Fill fill) {
  Tile<Shape> t;
  tc::fill_random(t.a, seed, fill);
  tc::fill_random(t.b, seed + 1, fill);
  tc::fill_random(t.c, seed + 2, fill);
  tc::reference_gemm(tc::Op::N, tc::Op::N, Shape::M, Shape::N, Shape::K, 1.0, t.a.data(), t.a.ld(), t.b.data(),
                     t.b.ld(), 1.0, t.c.data(), t.c.ld(), t.ref.data(), Shape::M, t.mag.data());
  const bool integer = fill == tc::Fill::Integer;
  std::printf("\n== tile %s: D (%dx%d) = A (%dx%d) * B (%dx%d) + C, fp16 inputs, fp32 accumulate ==\n",
              Shape::name().c_str(), Shape::M, Shape::N, Shape::M, Shape::K, Shape::K, Shape::N);
  print_matrix("A (fp16, column-major):", Shape::M, Shape::K, integer, [&](int r, int c) { return tc::to_double(t.a(r, c)); });
  print_matrix("B (fp16, column-major):", Shape::K, Shape::N, integer, [&](int r, int c) { return tc::to_double(t.b(r, c)); });
  print_matrix("C (fp32, column-major):", Shape::M, Shape::N, integer, [&](int r, int c) { return double(t.c(r, c)); });
  print_matrix("reference D (CPU, double):", Shape::M, Shape::N, integer,
               [&](int r, int c) { return t.ref[r + c * Shape::M]; });
  return t;
}

// (3) Run and verify: one warp on the GPU, D poisoned first so unwritten elements show up as NaN.
template <typename Shape>
inline bool run_and_verify(const Tile<Shape>& t, tc::Fill fill) {
  tc::DeviceBuffer<__half> a(t.a.storage()), b(t.b.storage());
  tc::DeviceBuffer<float> c(t.c.storage()), d(t.c.storage().size());
  d.poison();
  launch_wmma_single_tile<Shape>(Shape::M, Shape::N, Shape::K, a.data(), t.a.ld(), b.data(), t.b.ld(), c.data(),
                                 t.c.ld(), d.data(), Shape::M);
  const std::vector<float> got = d.download();
  std::printf("\n== tile %s on the Tensor Cores ==\n", Shape::name().c_str());
  print_matrix("D (GPU):", Shape::M, Shape::N, fill == tc::Fill::Integer,
               [&](int r, int c) { return double(got[r + c * Shape::M]); });
  // Integer-valued inputs make the fp32 result exact, so demand exactness; real inputs get the K-scaled bound.
  const tc::Tolerance tol =
      fill == tc::Fill::Integer ? tc::Tolerance::exact() : tc::Tolerance::fp32_accumulate<float>();
  const tc::CompareResult r =
      tc::compare(Shape::M, Shape::N, Shape::K, got.data(), Shape::M, t.ref.data(), t.mag.data(), Shape::M, tol);
  std::printf("verdict: %s\n", r.summary().c_str());
  return r.passed;
}

// (4) Time: one tile is 2*M*N*K = 8192 FLOP, far too little to measure the Tensor Cores; what this measures is the
// cost of a launch, the floor under every kernel in later chapters.
template <typename Shape>
inline void time_one_launch(const Tile<Shape>& t, int warmup, int repeats) {
  tc::DeviceBuffer<__half> a(t.a.storage()), b(t.b.storage());
  tc::DeviceBuffer<float> c(t.c.storage()), d(t.c.storage().size());
  const tc::TimingStats s = tc::benchmark(
      [&] {
        launch_wmma_single_tile<Shape>(Shape::M, Shape::N, Shape::K, a.data(), t.a.ld(), b.data(), t.b.ld(),
                                       c.data(), t.c.ld(), d.data(), Shape::M);
      },
      warmup, repeats);
  const double flops = tc::gemm_flops(Shape::M, Shape::N, Shape::K);
  std::printf("tile %-8s: median %.2f us per launch (min %.2f, max %.2f, %d launches) = %.4f TFLOP/s\n",
              Shape::name().c_str(), s.median_ms * 1e3, s.min_ms * 1e3, s.max_ms * 1e3, s.repeats,
              tc::tflops(flops, s.median_ms));
}

// (5) Probe one fragment kind and layout; prints the lane list, the grid and the copy count. Returns false if the
// measured map breaks an invariant every fragment must keep (a slot outside the tile, an element nobody holds).
template <typename Use, typename Shape, typename Layout>
inline bool probe_and_print(std::vector<std::string>& summary, const std::string& svg_dir) {
  using F = tc::ProbedFragment<Use, Shape, Layout>;
  const tc::LaneMap map = tc::probe_wmma_fragment<Use, Shape, Layout>();
  const std::string title = std::string(F::name) + " " + Shape::name() + " " + Layout::name;
  std::printf("\n== probe: %s ==\n", title.c_str());
  std::printf("tile %d x %d, %d elements per lane (x[0..%d]); each lane's x[i] holds tile element (row,col):\n",
              F::rows, F::cols, map.slots(), map.slots() - 1);
  std::fputs(map.format_lane_list().c_str(), stdout);
  std::printf("which lane(s) hold each element:\n");
  std::fputs(map.format_grid().c_str(), stdout);
  const bool ok = map.all_slots_in_tile() && map.min_copies() >= 1;
  char line[200];
  std::snprintf(line, sizeof line,
                "%-34s %2d x 32 lanes = %3d slots for %3d elements: each held %d..%d times, by at most %d lane(s)%s",
                title.c_str(), map.slots(), tc::kWarpSize * map.slots(), F::rows * F::cols, map.min_copies(),
                map.max_copies(), map.max_holder_lanes(), ok ? "" : "  <-- INVALID MAP");
  std::printf("copies: %s\n", line);
  summary.push_back(line);
  if (!svg_dir.empty()) {
    std::string file = std::string("01_") + F::name + "_" + Shape::name() + "_" + Layout::name + ".svg";
    std::replace(file.begin(), file.end(), '-', '_');
    tc::write_text_file(svg_dir + "/" + file, map.to_svg("WMMA " + title + ": lane(s) holding each element, measured"));
  }
  return ok;
}

template <typename Shape>
inline bool probe_shape(std::vector<std::string>& summary, const std::string& svg_dir) {
  using namespace nvcuda;
  bool ok = probe_and_print<wmma::matrix_a, Shape, tc::RowMajor>(summary, svg_dir);
  ok &= probe_and_print<wmma::matrix_a, Shape, tc::ColMajor>(summary, svg_dir);
  ok &= probe_and_print<wmma::matrix_b, Shape, tc::RowMajor>(summary, svg_dir);
  ok &= probe_and_print<wmma::matrix_b, Shape, tc::ColMajor>(summary, svg_dir);
  ok &= probe_and_print<wmma::accumulator, Shape, tc::RowMajor>(summary, svg_dir);
  ok &= probe_and_print<wmma::accumulator, Shape, tc::ColMajor>(summary, svg_dir);
  return ok;
}

// What the run allocates at its largest moment, summed over every shape as if all lived at once: each tile's host
// matrices (A, B fp16; C fp32) with the reference and its error scale (doubles), and on the GPU A, B, C and D twice
// (the verified run and the timed one), plus a probe's tile and per-lane slots. Kilobytes: no option can grow it, but
// the binary checks it like every other (tc/memory.hpp).
template <typename Shape>
inline tc::MemoryNeed tile_memory() {
  const std::uint64_t mk = Shape::M * Shape::K, kn = Shape::K * Shape::N, mn = Shape::M * Shape::N;
  const std::uint64_t tile = 2 * (mk + kn) + 4 * mn;  // A, B in fp16; C in fp32
  return {tile + 2 * 8 * mn, 2 * (tile + 4 * mn) + tc::checked_bytes(tc::kWarpSize * tc::kMaxProbeSlots, 4) + 4 * mk};
}
