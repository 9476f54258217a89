// Shared-memory tiles made of lines (a row of A, a column of B: K runs along each), and where element k of line
// `line` is stored: padded with a skew, or XOR-swizzled. The layout is a tag type, so a kernel changes a tag, not its
// index math (chapter 06, steps 2 and 3).
//
//   (line L, k LineElems) -> element offset in the stage
//   Padded<Skew>: line * (LineElems + Skew) + k
//       Each line is Skew elements longer than its data, so rows that would fall on the same banks move over.
//       Costs Skew / (LineElems + Skew) of the shared memory.
//   Swizzled:     line * LineElems + 16-byte chunk (k / kChunk) ^ f(line), k % kChunk unchanged
//       No padding. The 16-byte chunks of each line are permuted by XOR with f(line) = (line / R) % min(C, 8), where
//       C = chunks per line and R = max(1, 8 / C) lines share one 128-byte row of the 32 banks. So the 8 rows of an
//       ldmatrix matrix (8 consecutive lines, one chunk column) land on 8 different 16-byte bank groups, and the
//       8 lanes of a cp.async phase (16 bytes each along consecutive chunks) still write 128 distinct bytes.
//       Within a line it is a bijection (XOR with a constant), so nothing is lost or stored twice: the host tests
//       check both facts with the bank calculator (tc/layouts/smem_banks.hpp).
// Units: elements of `Elem`; offsets from a 128-byte-aligned stage base. Preconditions: 0 <= k < LineElems; k and
// LineElems in whole elements; lines and chunks 16-byte aligned (static_asserts below).
// Source: CUDA C++ Programming Guide, "Shared Memory" (32 banks of 4 bytes); for 128-byte lines the XOR swizzle is
// what CuTe writes Swizzle<3, 4, 3> on byte addresses (CUTLASS, "include/cute/swizzle.hpp"); here it is spelled out
// for any line length.
#pragma once

#include <cuda_runtime_api.h>

namespace tc {

template <int SkewElems>
struct Padded {};  // layout tag: lines SkewElems elements longer than their data
struct Swizzled {};  // layout tag: no padding, 16-byte chunks XOR-permuted per line

template <typename Elem, int LineElems, typename Tag>
struct SmemLines;

// [doc:padded]
template <typename Elem, int LineElems, int SkewElems>
struct SmemLines<Elem, LineElems, Padded<SkewElems>> {
  static constexpr int kChunk = 16 / int(sizeof(Elem));  // elements per 16-byte chunk (one cp.async, one ldmatrix row)
  static constexpr int kLineStride = LineElems + SkewElems;  // elements from one line's start to the next
  static constexpr int kRepeatLines = 1;  // offset(line + r, k) == offset(line, k) + r * kLineStride for any r
  __host__ __device__ static constexpr int offset(int line, int k) { return line * kLineStride + k; }
  static_assert(LineElems % kChunk == 0 && SkewElems % kChunk == 0,
                "every line must start 16-byte aligned: cp.async and ldmatrix move 16-byte rows");
};
// [/doc:padded]

// [doc:swizzled]
template <typename Elem, int LineElems>
struct SmemLines<Elem, LineElems, Swizzled> {
  static constexpr int kChunk = 16 / int(sizeof(Elem));
  static constexpr int kLineStride = LineElems;   // no padding
  static constexpr int kChunks = LineElems / kChunk;  // C: 16-byte chunks per line
  static constexpr int kLinesPerBankRow = kChunks >= 8 ? 1 : 8 / kChunks;  // R: lines sharing one 128-byte bank row
  static constexpr int kPattern = kChunks >= 8 ? 8 : kChunks;             // f(line) takes this many values
  // f repeats every R * min(C, 8) = 8 lines, so offset(line + 8r, k) == offset(line, k) + 8r * kLineStride: a kernel
  // computes a lane's swizzled address once and reaches the fragments 16 or 32 lines further by adding a constant.
  static constexpr int kRepeatLines = kLinesPerBankRow * kPattern;
  // The chunk that logical chunk `chunk` of line `line` is stored in.
  __host__ __device__ static constexpr int chunk(int line, int chunk) {
    return chunk ^ (line / kLinesPerBankRow % kPattern);
  }
  __host__ __device__ static constexpr int offset(int line, int k) {
    return line * kLineStride + chunk(line, k / kChunk) * kChunk + k % kChunk;
  }
  static_assert(kChunks >= 2 && (kChunks & (kChunks - 1)) == 0,
                "XOR permutes chunk indices only when a line is a power of two of at least two 16-byte chunks");
};
// [/doc:swizzled]

}  // namespace tc
