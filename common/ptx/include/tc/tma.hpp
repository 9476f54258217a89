// TMA tensor maps on the host: the argument rules of a 2-D tiled map as a pure function, and the map itself.
//
// A kernel's cp.async.bulk.tensor loads take a CUtensorMap, made on the host by the driver's cuTensorMapEncodeTiled
// and passed as a `const __grid_constant__` kernel parameter. This project reaches that driver function through
// cudaGetDriverEntryPointByVersion, so that no binary links libcuda: CI machines have only the driver's stub, and the
// runtime already holds the driver it loaded.
// The map here is 2-D: a matrix of `rows` rows of `inner` contiguous elements, `row_stride_bytes` apart, read in
// boxes of box_rows x box_inner elements, written to shared memory under one swizzle mode (tc/layouts/wgmma.hpp).
// Elements outside the matrix read as zero (CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE fills zeros), so a box may hang over
// the edge.
// Rules (CUDA Driver API, "cuTensorMapEncodeTiled"), checked by tma_2d_problem with one-line messages:
//   - box dimensions 1..256 elements;
//   - the box's inner dimension a multiple of 16 bytes, and within the swizzle span where there is a swizzle;
//   - the row stride a multiple of 16 bytes (and below 2^40);
//   - the global base address 16-byte aligned;
//   - matrix dimensions 1..2^32.
// Units: elements (dimensions, boxes), bytes (strides, alignment). Errors: std::invalid_argument (a broken rule),
// tc::CudaError (the driver refused, or has no cuTensorMapEncodeTiled).
// Source: CUDA Driver API, "Tensor Map Object Management"; CUDA Runtime API, "cudaGetDriverEntryPointByVersion";
// PTX ISA, "Tensor copy: cp.async.bulk.tensor".
#pragma once

#include "tc/layouts/wgmma.hpp"

#include <cuda.h>  // CUtensorMap and its enumerators (types only: nothing here links libcuda)

#include <cstdint>
#include <optional>
#include <string>

namespace tc {

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

// The first rule `t` breaks, as one line, or nothing.
std::optional<std::string> tma_2d_problem(const Tma2d& t);

// The tensor map of `t` for elements of `type`. Errors: std::invalid_argument (tma_2d_problem's message);
// tc::CudaError from the driver.
CUtensorMap make_tma_2d(const Tma2d& t, CUtensorMapDataType type);

}  // namespace tc
