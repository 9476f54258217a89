// The global loads one warp's load_matrix_sync issues, per layout: the model, and the sectors it costs (chapter 03).
//
// WMMA does not specify how load_matrix_sync reads memory, so this is measured, not promised: the SASS that CUDA 13
// emits for sm_90 (docs/results/03_transpose_layouts_sass_sm90.txt) and, for the first load instruction of each
// fragment kind, the address and size every lane reads (compute-sanitizer memcheck on
// 03_transpose_layouts/load_trace.cu: docs/results/03_wmma_load_trace_sm90.txt; chapter 03's host test checks this
// model against that trace, its own tests that it covers every element once at the stated sector cost).
//
// A 16 x 16 operand tile is 16 memory lines of 16 elements: rows for a row_major fragment, columns for col_major.
// Whether K runs along the lines decides everything. With g = tc::mma_group_id(lane) and
// t = tc::mma_thread_in_group(lane) (tc/layouts/lane_ids.hpp: the PTX ISA's groupID and threadID_in_group):
//   K along the lines (matrix_a row_major = op(A) T; matrix_b col_major = op(B) N), and f16 either way:
//     f16: 4 loads of 4 bytes per lane, at (line g + 8a, element 2t + 8b) for a, b in {0, 1};
//     s8:  2 loads of 4 bytes per lane, at (line g + 8a, element 4t).
//   s8 with K across the lines (matrix_a col_major = op(A) N; matrix_b row_major = op(B) T):
//     8 loads of 1 byte per lane, at (line 4t + j, element g + 8a) for j in 0..3, then PRMT to pack the bytes.
// The mma wants each 32-bit register to hold consecutive K elements (2 halves or 4 bytes). When K runs across the
// lines those are ld apart in memory. For f16 the compiler loads 4 bytes along the line anyway, which is an 8 x 8
// block transposed, and fixes it in registers with MOVM.16.MT88, one per block: 4 per fragment. MOVM moves 16-bit
// elements only, so for s8 it falls back to single bytes.
// Units: lines and elements of the tile; bytes. Source: PTX ISA, "Warp-level matrix instructions: mma" (fragment
// layouts); CUDA C++ Best Practices Guide, "Coalesced Access to Global Memory" (32-byte sectors).
#pragma once

#include "tc/layouts/lane_ids.hpp"
#include "tc/lane_map.hpp"

#include <array>
#include <cstdint>
#include <set>
#include <vector>

inline constexpr int kSectorBytes = 32;  // the unit in which L1 fetches global memory

// What one lane reads in one load instruction: `bytes` bytes from element `element` of tile line `line`.
struct LaneRead {
  int line = 0;
  int element = 0;
  int bytes = 0;
};
using WarpRequest = std::array<LaneRead, tc::kWarpSize>;  // one load instruction, all 32 lanes

struct LoadPlan {
  std::vector<WarpRequest> requests;  // in the order the measured first instruction starts
  int movm = 0;                       // MOVM.16.MT88 register transposes after the loads
};

// The load plan of one 16 x 16 fragment of element_bytes-wide elements (2: f16, 1: s8), by whether K runs along the
// tile's memory lines. Errors: none; element_bytes other than 1 or 2 gives an empty plan.
inline LoadPlan wmma_load_plan(int element_bytes, bool k_along_lines) {
  LoadPlan plan;
  auto add = [&](auto read) {
    WarpRequest r;
    for (int lane = 0; lane < tc::kWarpSize; ++lane)
      r[lane] = read(tc::mma_group_id(lane), tc::mma_thread_in_group(lane));
    plan.requests.push_back(r);
  };
  if (element_bytes == 2) {
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 2; ++b) add([&](int g, int t) { return LaneRead{g + 8 * a, 2 * t + 8 * b, 4}; });
    plan.movm = k_along_lines ? 0 : 4;
  } else if (element_bytes == 1 && k_along_lines) {
    for (int a = 0; a < 2; ++a) add([&](int g, int t) { return LaneRead{g + 8 * a, 4 * t, 4}; });
  } else if (element_bytes == 1) {
    for (int a = 0; a < 2; ++a)
      for (int j = 0; j < 4; ++j) add([&](int g, int t) { return LaneRead{4 * t + j, g + 8 * a, 1}; });
  }
  return plan;
}

// The distinct 32-byte sectors one request touches in a tile whose lines are ld elements apart (the tile starting on
// a sector boundary and ld * element_bytes a multiple of 32, as for every size timed here), and the bytes it uses.
struct RequestCost {
  int sectors = 0;
  int bytes = 0;
};
inline RequestCost request_cost(const WarpRequest& request, int ld, int element_bytes) {
  std::set<std::int64_t> sectors;
  RequestCost cost;
  for (const LaneRead& r : request) {
    const std::int64_t first = (std::int64_t(r.line) * ld + r.element) * element_bytes;
    for (std::int64_t b = first; b < first + r.bytes; ++b) sectors.insert(b / kSectorBytes);
    cost.bytes += r.bytes;
  }
  cost.sectors = int(sectors.size());
  return cost;
}

// The plan as a picture: a 16-line x 16-element tc::LaneMap (a row per memory line) whose cell names the lane that
// loads it, slot = the lane's i-th element loaded. Every element is loaded exactly once.
inline tc::LaneMap load_map(const LoadPlan& plan, int element_bytes) {
  int slots = 0;
  for (const LaneRead& r : plan.requests.front()) slots = r.bytes / element_bytes;
  tc::LaneMap map(16, 16, slots * int(plan.requests.size()));
  for (std::size_t q = 0; q < plan.requests.size(); ++q)
    for (int lane = 0; lane < tc::kWarpSize; ++lane) {
      const LaneRead& r = plan.requests[q][lane];
      for (int e = 0; e < r.bytes / element_bytes; ++e) map.at(lane, int(q) * slots + e) = {r.line, r.element + e};
    }
  return map;
}

