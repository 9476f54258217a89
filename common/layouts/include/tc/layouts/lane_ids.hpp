// A lane's place in a warp: the warp size, the (row, col) coordinates layout functions return, and the PTX ISA's
// names for a lane's place in a warp-level matrix fragment: groupID and threadID_in_group.
//
// lane (0..31) -> groupID = lane >> 2 (0..7), threadID_in_group = lane % 4 (0..3). Every mma.sync fragment layout in
// the ISA is written with these two (groupID picks the row, threadID_in_group the column pair or quad), and so is
// what WMMA's fragment loads do on sm_80/sm_90 (chapter 03's wmma_loads.hpp). They are spelled once, here, so that no
// file re-derives `lane / 4`.
// Source: PTX ISA, "Warp-level matrix instructions: mma", "Matrix Fragments for mma.m16n8k16".
#pragma once

#include <cuda_runtime_api.h>  // __host__ __device__ for host-only compilers too

namespace tc {

// A (row, col) inside a tile: what a layout function returns. {-1, -1} is "no element".
struct Coord {
  int row = -1;
  int col = -1;
  __host__ __device__ constexpr bool operator==(const Coord& o) const { return row == o.row && col == o.col; }
  __host__ __device__ constexpr bool operator!=(const Coord& o) const { return !(*this == o); }
};

inline constexpr int kWarpSize = 32;  // lanes per warp on every NVIDIA GPU to date (PTX ISA, "Thread Hierarchy")

__host__ __device__ constexpr int mma_group_id(int lane) { return lane >> 2; }
__host__ __device__ constexpr int mma_thread_in_group(int lane) { return lane % 4; }

}  // namespace tc
