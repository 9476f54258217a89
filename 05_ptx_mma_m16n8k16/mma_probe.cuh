// Chapter 05, the hardware probe: does the real instruction place A, B and C where the formulas say?
//
// The probe never uses the formulas to fill registers. It writes numbers straight into each lane's registers and
// lets mma.sync tell where they went:
//   runs 0..127, one per B element s = (lane s / 4, b[s % 4]): that element is 1, every other B element 0; A element
//     (lane l, a_i) holds the number 1 + 8l + i (1..256); C is 0. Then D(row, col) = A(row, k_s) if col is s's
//     column and 0 otherwise: the 16 D elements of s's column each receive one A element, named by its number.
//   run 128: A = B = 0 and C element (lane l, c_i) holds 1 + 4l + i, so D = C shows where each C element went.
// Every number is an integer <= 256, exact in fp16, bf16 (8-bit significand) and as an fp16 or fp32 sum of one term.
// A caveat the docs explain: the instruction itself cannot tell rows apart. Renaming the rows (m), the K index or
// the columns (n) consistently in A, B and D leaves every product unchanged. What the hardware does fix is which A
// and B elements meet and which D element they land in. So the probe (1) checks that whole relation against the
// formulas' prediction, all 128 x 128 (B element, D element) outcomes, and (2) recovers the maps with the names
// anchored the way a kernel anchors them, by memory: D's (row, col) as the C/D formula stores it, K as B's formula
// loads it. A's map is then measured in full: its row is where its products land, its column which B element
// multiplied it; B's column is the column of D its products land in. C is different: the C run shows only that C
// register (lane, i) comes back as D register (lane, i) (c_kept counts them). C's (row, col) is the anchor itself,
// the formula's, not a measurement: no instruction here stores C by position.
#pragma once

#include "tc/check.hpp"
#include "tc/device_buffer.hpp"
#include "tc/lane_map.hpp"
#include "tc/layout_maps.hpp"
#include "tc/layouts/mma_m16n8k16.hpp"
#include "tc/mma_sync.cuh"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <vector>

inline constexpr int kProbeBRuns = tc::kWarpSize * tc::MmaM16N8K16::kElemsB;  // 128: one per B element
inline constexpr int kProbeRuns = kProbeBRuns + 1;                            // + the C run

// One block of one warp per run; out[(run * 32 + lane) * 4 + i] = that lane's D element i. Preconditions: grid
// kProbeRuns x 1, block 32 x 1; sm_80 or newer. Source: PTX ISA "mma" (the instruction only, no layout assumed).
// [doc:probe_kernel]
template <typename Mma>
__global__ void mma_probe_kernel(float* out) {
  using S = tc::MmaM16N8K16;
  using In = typename Mma::Input;
  const int run = blockIdx.x, lane = threadIdx.x;
  const bool c_run = run == kProbeBRuns;
  auto in = [](int v) { return static_cast<In>(static_cast<float>(v)); };
  std::uint32_t a[S::kRegsA], b[S::kRegsB];
  // c starts zeroed because set_c on a packed .f16 register rewrites one half and keeps the other.
  typename Mma::CReg c[Mma::kCRegs] = {}, d[Mma::kCRegs];
  for (int j = 0; j < S::kRegsA; ++j) {
    const int id = 1 + S::kElemsA * lane + 2 * j;  // the numbers of a_2j and a_2j+1
    a[j] = c_run ? 0u : Mma::pack(in(id), in(id + 1));
  }
  for (int j = 0; j < S::kRegsB; ++j) {
    const int s = S::kElemsB * lane + 2 * j;  // the run that sets b_2j of this lane
    b[j] = Mma::pack(in(run == s ? 1 : 0), in(run == s + 1 ? 1 : 0));
  }
  for (int i = 0; i < S::kElemsC; ++i) Mma::set_c(c, i, c_run ? float(1 + S::kElemsC * lane + i) : 0.0f);
  Mma::mma(d, a, b, c);
  for (int i = 0; i < S::kElemsC; ++i) out[(run * tc::kWarpSize + lane) * S::kElemsC + i] = Mma::get_c(d, i);
}
// [/doc:probe_kernel]

// What the probe found.
struct MmaProbeResult {
  std::vector<float> measured;  // out[] as the kernel wrote it
  std::vector<float> predicted;  // the same, computed on the host from the formulas
  int mismatches = 0;            // elements where measured != predicted: 0 means the hardware agrees everywhere
  // The recovered maps (anchored as the header says); an element that lands inconsistently stays {-1, -1}.
  tc::LaneMap a{16, 16, 8}, b{16, 8, 4};
  // How many of the 128 C registers came back, in the C run, in the same lane and register of D (128: all).
  int c_kept = 0;
};

// The probe's output predicted from the formulas alone (host), in the kernel's out[] order.
inline std::vector<float> predict_mma_probe() {
  using S = tc::MmaM16N8K16;
  std::vector<float> out(static_cast<std::size_t>(kProbeRuns) * tc::kWarpSize * S::kElemsC, 0.0f);
  std::vector<int> a_number(S::M * S::K);  // the number the probe puts in the A element at (row, col)
  for (int lane = 0; lane < tc::kWarpSize; ++lane)
    for (int i = 0; i < S::kElemsA; ++i) {
      const tc::Coord p = tc::mma_m16n8k16_a_coord(lane, i);
      a_number[p.row * S::K + p.col] = 1 + S::kElemsA * lane + i;
    }
  for (int run = 0; run < kProbeRuns; ++run)
    for (int lane = 0; lane < tc::kWarpSize; ++lane)
      for (int i = 0; i < S::kElemsC; ++i) {
        const tc::Coord d = tc::mma_m16n8k16_c_coord(lane, i);
        float v = float(1 + S::kElemsC * lane + i);  // the C run: D = C
        if (run < kProbeBRuns) {
          const tc::Coord one = tc::mma_m16n8k16_b_coord(run / S::kElemsB, run % S::kElemsB);  // (k, n) of the 1
          v = d.col == one.col ? float(a_number[d.row * S::K + one.row]) : 0.0f;
        }
        out[(run * tc::kWarpSize + lane) * S::kElemsC + i] = v;
      }
  return out;
}

// Fills r.mismatches and the recovered maps from r.measured and r.predicted (host). Separate from the GPU run so that
// a host test can feed it a wrong layout and watch it fail.
inline void recover_mma_maps(MmaProbeResult& r) {
  using S = tc::MmaM16N8K16;
  r.mismatches = 0;
  for (std::size_t e = 0; e < r.measured.size(); ++e) r.mismatches += !(r.measured[e] == r.predicted[e]);
  r.a = tc::LaneMap(S::M, S::K, S::kElemsA);
  r.b = tc::LaneMap(S::K, S::N, S::kElemsB);
  r.c_kept = 0;
  // A: every nonzero D element of run s names an A element at (D's row, s's K); B: a run's nonzero D elements share
  // one column, s's; C: run 128's D register (l, i) must hold C's (l, i), number 1 + 4l + i. An element seen at two
  // different places is marked {-2, -2} rather than overwritten.
  auto record = [](tc::LaneMap& map, int lane, int i, tc::Coord p) {
    tc::Coord& slot = map.at(lane, i);
    slot = slot == tc::Coord{} || slot == p ? p : tc::Coord{-2, -2};
  };
  for (int run = 0; run < kProbeRuns; ++run)
    for (int lane = 0; lane < tc::kWarpSize; ++lane)
      for (int i = 0; i < S::kElemsC; ++i) {
        const float v = r.measured[(run * tc::kWarpSize + lane) * S::kElemsC + i];
        const tc::Coord d = tc::mma_m16n8k16_c_coord(lane, i);  // the anchor: where a kernel stores this element
        if (run == kProbeBRuns) {
          r.c_kept += v == float(1 + S::kElemsC * lane + i);
          continue;
        }
        if (!(v >= 1.0f && v <= 256.0f) || v != std::floor(v)) continue;  // 0 (no product here), NaN, not a number
        const int id = static_cast<int>(v) - 1;
        const int s_lane = run / S::kElemsB, s_i = run % S::kElemsB;
        const tc::Coord one = tc::mma_m16n8k16_b_coord(s_lane, s_i);  // the anchor for K
        record(r.a, id / S::kElemsA, id % S::kElemsA, {d.row, one.row});
        record(r.b, s_lane, s_i, {one.row, d.col});
      }
}

// Runs the probe for the variant Mma on the current GPU and recovers the maps from what it wrote.
// Errors: tc::CudaError from CUDA calls (no GPU, no kernel image).
template <typename Mma>
MmaProbeResult probe_mma_m16n8k16() {
  using S = tc::MmaM16N8K16;
  tc::DeviceBuffer<float> out(static_cast<std::size_t>(kProbeRuns) * tc::kWarpSize * S::kElemsC);
  out.poison();  // NaN: an element the kernel did not write matches nothing
  mma_probe_kernel<Mma><<<kProbeRuns, tc::kWarpSize>>>(out.data());
  tc::check_launch();
  MmaProbeResult r;
  r.measured = out.download();
  r.predicted = predict_mma_probe();
  recover_mma_maps(r);
  return r;
}

// How many of the 32 x count elements x[first + e] of a measured WMMA fragment (chapter 01's probe) sit where the
// m16n8k16 formula for `operand` puts element e, shifted right by col_shift columns.
inline int count_wmma_matches(const tc::LaneMap& wmma, int first, int count, tc::MmaOperand operand, int col_shift) {
  const tc::LaneMap mma = tc::mma_m16n8k16_map(operand);
  int matches = 0;
  for (int lane = 0; lane < tc::kWarpSize; ++lane)
    for (int e = 0; e < count; ++e) {
      const tc::Coord want = mma.at(lane, e);
      matches += first + e < wmma.slots() && wmma.at(lane, first + e) == tc::Coord{want.row, want.col + col_shift};
    }
  return matches;
}
