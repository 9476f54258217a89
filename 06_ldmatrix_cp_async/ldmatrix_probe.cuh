// Chapter 06, the ldmatrix probe: does the real instruction take each row from the lane the ISA says, and hand each
// lane the elements tc/layouts/ldmatrix.hpp says, for .x1, .x2, .x4, with and without .trans?
//
// The tile's element (row, col) holds tc::probe_value(row, col) (exact in fp16), and its rows are stored out of order
// (row r on line (5 r + 3) mod rows) so that a lane pointing at the wrong row would show. Each lane passes the address
// of the row tc::ldmatrix_address_row names; lanes that .x1 and .x2 ignore point at a poison line whose values
// decode to no tile element. Every lane then writes out what it received, and the host decodes it into a LaneMap to
// compare with tc::ldmatrix_map. Nothing in the kernel uses the received-element map.
#pragma once

#include "tc/check.hpp"
#include "tc/device_buffer.hpp"
#include "tc/layout_maps.hpp"
#include "tc/layouts/ldmatrix.hpp"
#include "tc/lane_map.hpp"
#include "tc/layouts/probe_encoding.hpp"
#include "tc/ldmatrix.cuh"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

// The line row r is stored on, in a tile of `rows` lines: a permutation (5 is odd, rows a power of two).
__host__ __device__ constexpr int probe_line_of_row(int r, int rows) { return (5 * r + 3) % rows; }

// [doc:probe_kernel]
// One warp. out[lane * 2 Num + e] = the fp16 value in half e % 2 of the lane's register e / 2, as float.
// Preconditions: grid 1, block 32; sm_75 or newer. Source: PTX ISA 9.7.14.5.15 (the instruction only).
template <int Num, bool Trans>
__global__ void ldmatrix_probe_kernel(float* out) {
  constexpr int kRows = 8 * Num;
  // kRows lines of 8 halves (16 bytes each) plus a poison line; 16-byte aligned as ldmatrix requires.
  __shared__ __align__(16) __half tile[(kRows + 1) * 8];
  const int lane = threadIdx.x;
  for (int i = lane; i < (kRows + 1) * 8; i += tc::kWarpSize) {
    const int line = i / 8, col = i % 8;
    int value = tc::kProbeMaxValue;  // the poison line: decodes to (31, 63), outside every tile here
    for (int r = 0; r < kRows; ++r)
      if (probe_line_of_row(r, kRows) == line) value = tc::probe_value(r, col);
    tile[i] = __float2half(float(value));
  }
  __syncwarp();  // the tile is written by all lanes before any lane's ldmatrix reads it
  const tc::LdmatrixRow supplied = tc::ldmatrix_address_row(lane);
  const int line = supplied.matrix < Num ? probe_line_of_row(8 * supplied.matrix + supplied.row, kRows) : kRows;
  const __half* row = tile + line * 8;
  std::uint32_t r[Num];
  if constexpr (Num == 1) Trans ? tc::ldmatrix_x1_trans(r, row) : tc::ldmatrix_x1(r, row);
  if constexpr (Num == 2) Trans ? tc::ldmatrix_x2_trans(r, row) : tc::ldmatrix_x2(r, row);
  if constexpr (Num == 4) Trans ? tc::ldmatrix_x4_trans(r, row) : tc::ldmatrix_x4(r, row);
  for (int e = 0; e < 2 * Num; ++e) {
    const __half h = __ushort_as_half(static_cast<unsigned short>(r[e / 2] >> (16 * (e % 2))));
    out[lane * 2 * Num + e] = __half2float(h);
  }
}
// [/doc:probe_kernel]

// Run the probe and decode it: the (8 Num) x 8 map of what each lane received, matrix i as rows 8i..8i+7, in the
// form tc::ldmatrix_map(Num, Trans) predicts. A decoded value outside the tile (the poison line, or garbage) is kept
// as it decodes, so LaneMap::all_slots_in_tile() and the comparison both fail. Errors: tc::CudaError.
template <int Num, bool Trans>
tc::LaneMap probe_ldmatrix() {
  tc::DeviceBuffer<float> out(tc::kWarpSize * 2 * Num);
  out.poison();
  ldmatrix_probe_kernel<Num, Trans><<<1, tc::kWarpSize>>>(out.data());
  tc::check_launch();
  const std::vector<float> got = out.download();
  tc::LaneMap map(8 * Num, 8, 2 * Num);
  for (int lane = 0; lane < tc::kWarpSize; ++lane)
    for (int e = 0; e < 2 * Num; ++e) map.at(lane, e) = tc::probe_coord(got[lane * 2 * Num + e]);
  return map;
}
