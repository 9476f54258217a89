// Chapter 03's own sections: what main.cu prints besides the driver's tables.
//   - the four ops: how cuBLAS stores A and B for each, and the WMMA fragment layout each takes (host);
//   - what one warp's global loads cost per K step for each op, from the load model (wmma_loads.hpp; host);
//   - with --svg: the load figures (host) and, after the GPU check, the probed matrix_a holding maps (GPU).
// Shapes: the run's first size (o.sizes[0]). Units: loads, 32-byte sectors, register transposes. Errors:
// tc::UsageError when a figure cannot be written; tc::CudaError from the probe. Source: CUDA C++ Programming Guide,
// "Warp Matrix Functions"; cuBLAS documentation, "cublas<t>gemm()" (transa, transb).
#pragma once

#include "figures.hpp"
#include "wmma_loads.hpp"

#include "tc/gemm_args.hpp"
#include "tc/gemm_driver.hpp"  // tc::RunOptions
#include "tc/main.hpp"         // tc::write_text_file
#include "tc/tile_contract.hpp"
#include "tc/wmma_probe.cuh"

#include <cstdio>
#include <string>
#include <type_traits>
#include <utility>

// Calls f(LayoutA{}, LayoutB{}) for each op pair the --op selection names, in cuBLAS's order NN, NT, TN, TT.
template <typename F>
void for_each_op(const std::string& selection, F&& f) {
  using tc::ColMajor, tc::RowMajor;
  if (selection == "all" || selection == "NN") f(ColMajor{}, ColMajor{});
  if (selection == "all" || selection == "NT") f(ColMajor{}, RowMajor{});
  if (selection == "all" || selection == "TN") f(RowMajor{}, ColMajor{});
  if (selection == "all" || selection == "TT") f(RowMajor{}, RowMajor{});
}

template <typename LayoutA, typename LayoutB>
std::string op_label() {
  return std::string(tc::op_name(tc::op_of<LayoutA>())) + tc::op_name(tc::op_of<LayoutB>());
}

// (2b) What one warp's loads cost per K step for each op, from the load model (wmma_loads.hpp): load
// instructions, 32-byte sectors per instruction, register transposes. ncu measures the same counts (docs/03).
inline void print_load_table(const tc::GemmShape& s) {
  // The kernel runs on sizes rounded up to its 16 x 16 x 16 tile (padded copies where they are not multiples).
  const int m = tc::round_up(s.m, 16), n = tc::round_up(s.n, 16), k = tc::round_up(s.k, 16);
  const double warp_steps = double(m / 16) * (n / 16) * (k / 16);  // K steps of all warps together
  std::printf("\n== global loads of one warp per K step, by op (host arithmetic: wmma_loads.hpp) ==\n");
  const std::string size = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
  std::printf("%-4s %-3s %-10s %-10s %8s %9s %5s %16s\n", "type", "op", "A: loads", "B: loads", "loads", "sect/load",
              "MOVM", ("loads at " + size).c_str());
  for (int bytes : {2, 1}) {
    for_each_op("all", [&](auto la, auto lb) {
      using LA = decltype(la);
      using LB = decltype(lb);
      // matrix_a's K runs along its lines when op(A) is stored row-major (op T); matrix_b's when column-major (op N).
      const LoadPlan a = wmma_load_plan(bytes, std::is_same_v<LA, tc::RowMajor>);
      const LoadPlan b = wmma_load_plan(bytes, std::is_same_v<LB, tc::ColMajor>);
      int loads = 0, sectors = 0;
      for (auto [plan, ld] : {std::pair{&a, LA::min_ld(m, k)}, std::pair{&b, LB::min_ld(k, n)}})
        for (const WarpRequest& r : plan->requests) {
          ++loads;
          sectors += request_cost(r, ld, bytes).sectors;
        }
      auto describe = [&](const LoadPlan& p) {
        return std::to_string(p.requests.size()) + " x " + std::to_string(p.requests.front().front().bytes) + " B";
      };
      std::printf("%-4s %-3s %-10s %-10s %8d %9.2f %5d %16.0f\n", bytes == 2 ? "f16" : "s8",
                  op_label<LA, LB>().c_str(), describe(a).c_str(), describe(b).c_str(), loads,
                  double(sectors) / loads, a.movm + b.movm, loads * warp_steps);
    });
  }
  std::printf("loads: warp-level load instructions per 16-deep K step (A x bytes per lane each); sect/load: 32-byte "
              "sectors per\ninstruction; MOVM: 8x8 register transposes; last column: loads x warp-steps, the whole "
              "kernel's count.\n");
}

// (2) Explain: storage, fragment layouts, and what one warp's loads cost.
inline void explain(const tc::RunOptions& o) {
  std::printf("\n== the four ops: storage and fragment layouts (cuBLAS column-major storage) ==\n");
  std::printf("%-3s %-10s %-12s %-10s %-12s %-12s %-12s\n", "op", "A stored", "lda >=", "B stored", "ldb >=",
              "matrix_a", "matrix_b");
  for_each_op("all", [&](auto la, auto lb) {
    using LA = decltype(la);
    using LB = decltype(lb);
    const bool ta = tc::op_of<LA>() == tc::Op::T, tb = tc::op_of<LB>() == tc::Op::T;
    std::printf("%-3s %-10s %-12s %-10s %-12s %-12s %-12s\n", op_label<LA, LB>().c_str(), ta ? "k x m" : "m x k",
                ta ? "max(1, k)" : "max(1, m)", tb ? "n x k" : "k x n", tb ? "max(1, n)" : "max(1, k)",
                ta ? "row_major" : "col_major", tb ? "row_major" : "col_major");
  });
  std::printf("matrix_a/matrix_b: the nvcuda::wmma layout each fragment is declared with (tc::wmma_layout_t of the "
              "op's tag).\n");

  print_load_table(o.sizes.front());

  if (!o.svg_dir.empty()) {
    tc::write_text_file(o.svg_dir + "/03_row_major_identity.svg", row_major_identity_svg());
    tc::write_text_file(o.svg_dir + "/03_loads_f16.svg",
               load_map(wmma_load_plan(2, true), 2)
                   .to_svg("f16, either layout: lane that loads each element (4 x 4-byte loads per lane)"));
    tc::write_text_file(o.svg_dir + "/03_loads_s8_k_along_lines.svg",
               load_map(wmma_load_plan(1, true), 1)
                   .to_svg("s8, K along the lines: lane that loads each element (2 x 4-byte loads per lane)"));
    tc::write_text_file(o.svg_dir + "/03_loads_s8_k_across_lines.svg",
               load_map(wmma_load_plan(1, false), 1)
                   .to_svg("s8, K across the lines: lane that loads each element (8 x 1-byte loads per lane)"));
  }
}

// Where the loaded data ends up, measured: an f16 16x16x16 matrix_a fragment probed for both layouts and redrawn in
// memory order (needs the GPU). Beside the load figures, they show what MOVM has to fix for col_major.
inline void draw_holding_maps(const tc::RunOptions& o) {
  if (o.svg_dir.empty()) return;
  const tc::LaneMap col = tc::probe_wmma_fragment<nvcuda::wmma::matrix_a, tc::WmmaF16, tc::ColMajor>();
  const tc::LaneMap row = tc::probe_wmma_fragment<nvcuda::wmma::matrix_a, tc::WmmaF16, tc::RowMajor>();
  tc::write_text_file(o.svg_dir + "/03_matrix_a_holds_col_major.svg",
             address_map<tc::ColMajor>(col, 16).to_svg(
                 "col_major matrix_a after the load: row = memory line (a column of A), cell = lane holding it"));
  tc::write_text_file(o.svg_dir + "/03_matrix_a_holds_row_major.svg",
             address_map<tc::RowMajor>(row, 16).to_svg(
                 "row_major matrix_a after the load: row = memory line (a row of A), cell = lane holding it"));
  std::printf("wrote the probed matrix_a holding maps to %s\n", o.svg_dir.c_str());
}
