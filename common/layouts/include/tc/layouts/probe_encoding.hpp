// Coordinate-encoding tiles for fragment probes: element (row, col) holds the value row * 64 + col.
//
// (row, col) -> value, and back. A probe loads such a tile into a fragment and reads back which value each lane's
// register holds, which names the (row, col) that register came from, without trusting any documented layout.
// Why 64: it is a power of two >= every tile width used here (at most 32 columns), so row and col read off directly;
// and every value up to 31 * 64 + 63 = 2047 is an integer that fp16 (11-bit significand) represents exactly, so the
// value survives the trip through a half-precision fragment unchanged.
// Preconditions: 0 <= col < 64 and the encoded value <= kProbeMaxValue (probe_encodable checks a whole tile).
#pragma once

#include "tc/layouts/lane_ids.hpp"  // tc::Coord

#include <cuda_runtime_api.h>

namespace tc {

inline constexpr int kProbeRowStride = 64;
inline constexpr int kProbeMaxValue = 2047;  // 2^11 - 1: the largest odd integer fp16 represents exactly

__host__ __device__ constexpr int probe_value(int row, int col) { return row * kProbeRowStride + col; }

// The (row, col) a probe value encodes; {-1, -1} for a value no tile element carries (negative, too large, not an
// integer, NaN).
__host__ __device__ constexpr Coord probe_coord(double value) {
  // Range first, written so that NaN (which compares false) is rejected before the int conversion, where it would be
  // undefined behaviour.
  if (!(value >= 0.0 && value <= kProbeMaxValue)) return {-1, -1};
  if (value != static_cast<double>(static_cast<int>(value))) return {-1, -1};
  const int v = static_cast<int>(value);
  return {v / kProbeRowStride, v % kProbeRowStride};
}

__host__ __device__ constexpr bool probe_encodable(int rows, int cols) {
  return rows >= 1 && cols >= 1 && cols <= kProbeRowStride && probe_value(rows - 1, cols - 1) <= kProbeMaxValue;
}

}  // namespace tc
