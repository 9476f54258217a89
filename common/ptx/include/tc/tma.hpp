// TMA tensor maps on the host: the argument rules of a tiled map of rank 1 to 5 as a pure function, and the map.
//
// A kernel's cp.async.bulk.tensor loads take a CUtensorMap, made on the host by the driver's cuTensorMapEncodeTiled
// and passed as a `const __grid_constant__` kernel parameter. This project reaches that driver function through
// cudaGetDriverEntryPointByVersion, so that no binary links libcuda: CI machines have only the driver's stub, and the
// runtime already holds the driver it loaded.
// A map (TmaTensor) describes a tensor of `rank` dimensions, dimension 0 contiguous and each other one `strides_bytes`
// apart, read in boxes of box[0] x box[1] x ... elements, which land in shared memory densely in that order (dimension
// 0 fastest) under one swizzle mode (tc/layouts/wgmma.hpp). Elements outside the tensor read as zero
// (CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE fills zeros), so a box may hang over any edge.
// Rank 2 is a matrix (Tma2d: `rows` rows of `inner` elements). Ranks 3 and 4 read a tensor in place: attention's
// [batch, seqlen, heads, head_dim] Q, K, V (head_dim contiguous) as dimensions (head_dim, seqlen, heads, batch) with
// strides (heads * head_dim, head_dim, seqlen * heads * head_dim) elements, so that a box (64, 128, 1, 1) is 128
// keys of one head, without a copy that gathers a head's rows first. The strides need not grow with the dimension.
// Rules (CUDA Driver API, "cuTensorMapEncodeTiled"), checked by tma_problem with one-line messages:
//   - rank 1..5;
//   - box dimensions 1..256 elements;
//   - the box's inner dimension a multiple of 16 bytes, and within the swizzle span where there is a swizzle;
//   - every stride a multiple of 16 bytes (and below 2^40), and the first at least one row of dimension 0;
//   - the global base address 16-byte aligned;
//   - tensor dimensions 1..2^32.
// Units: elements (dimensions, boxes), bytes (strides, alignment). Errors: std::invalid_argument (a broken rule),
// tc::CudaError (the driver refused, or has no cuTensorMapEncodeTiled).
// Source: CUDA Driver API, "Tensor Map Object Management"; CUDA Runtime API, "cudaGetDriverEntryPointByVersion";
// PTX ISA, "Tensor copy: cp.async.bulk.tensor".
#pragma once

#include "tc/layouts/wgmma.hpp"

#include <cuda.h>  // CUtensorMap and its enumerators (types only: nothing here links libcuda)

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace tc {

// The largest rank cuTensorMapEncodeTiled takes.
inline constexpr int kTmaMaxRank = 5;

struct TmaTensor {
  const void* base = nullptr;  // device address of element (0, 0, ...)
  int element_bytes = 2;
  int rank = 2;                                   // 1..kTmaMaxRank
  std::array<std::uint64_t, kTmaMaxRank> dims{};  // elements; dims[0] is contiguous
  // strides_bytes[i - 1]: bytes from one index of dimension i to the next (dimension 0's stride is the element).
  std::array<std::uint64_t, kTmaMaxRank - 1> strides_bytes{};
  std::array<int, kTmaMaxRank> box{};  // elements along each dimension
  Swizzle swizzle = Swizzle::B128;
};

// The first rule `t` breaks, as one line, or nothing. Dimensions 0 and 1 are called "inner dimension" and "rows",
// the others "dimension i".
std::optional<std::string> tma_problem(const TmaTensor& t);

// The tensor map of `t` for elements of `type`. Errors: std::invalid_argument (tma_problem's message);
// tc::CudaError from the driver.
CUtensorMap make_tma(const TmaTensor& t, CUtensorMapDataType type);

struct Tma2d {
  const void* base = nullptr;     // device address of element (0, 0)
  int element_bytes = 2;
  std::uint64_t inner = 0;        // elements along the contiguous dimension
  std::uint64_t rows = 0;         // rows
  std::uint64_t row_stride_bytes = 0;
  int box_inner = 0;              // box, in elements
  int box_rows = 0;
  Swizzle swizzle = Swizzle::B128;
};

// The rank-2 TmaTensor of `t`.
TmaTensor as_tensor(const Tma2d& t);

// tma_problem and make_tma of as_tensor(t).
std::optional<std::string> tma_2d_problem(const Tma2d& t);
CUtensorMap make_tma_2d(const Tma2d& t, CUtensorMapDataType type);

}  // namespace tc
