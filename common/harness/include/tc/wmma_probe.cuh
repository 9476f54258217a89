// The WMMA fragment probe: which tile element does each lane's x[i] hold? Chapter 01 teaches it; chapter 03 uses it
// to draw the addresses behind each lane's elements.
//
// WMMA deliberately leaves the mapping from fragment elements to matrix elements unspecified ("the mapping of
// matrix elements into fragment internal storage is unspecified and subject to change in future architectures",
// Programming Guide, "Warp Matrix Functions"). So we measure it: fill a tile so that element (row, col) holds the
// number row * 64 + col (tc/layouts/probe_encoding.hpp), load it into a fragment, and have every lane write out its
// x[i]. Each value names the (row, col) it came from. The result is a LaneMap, printed and tested.
// Element-wise code may still touch x[i] (scale, convert, add) because such code needs no mapping; code that needs
// to know which element x[i] is must wait for mma.sync (chapter 05), where the PTX ISA specifies the layout.
#pragma once

#include "tc/check.hpp"
#include "tc/device_buffer.hpp"
#include "tc/lane_map.hpp"
#include "tc/layouts/probe_encoding.hpp"
#include "tc/matrix.hpp"
#include "tc/types.hpp"
#include "tc/wmma.cuh"

#include <cuda_fp16.h>
#include <mma.h>

#include <stdexcept>
#include <string>
#include <type_traits>

namespace tc {

// A fragment type and the tile it covers: matrix_a is M x K, matrix_b is K x N, the accumulator M x N.
template <typename Use, typename Shape, typename Layout>
struct ProbedFragment;
template <typename Shape, typename Layout>
struct ProbedFragment<nvcuda::wmma::matrix_a, Shape, Layout> {
  using type = nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, Shape::M, Shape::N, Shape::K, __half,
                                      wmma_layout_t<Layout>>;
  using element = __half;
  static constexpr int rows = Shape::M, cols = Shape::K;
  static constexpr const char* name = "matrix_a";
};
template <typename Shape, typename Layout>
struct ProbedFragment<nvcuda::wmma::matrix_b, Shape, Layout> {
  using type = nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, Shape::M, Shape::N, Shape::K, __half,
                                      wmma_layout_t<Layout>>;
  using element = __half;
  static constexpr int rows = Shape::K, cols = Shape::N;
  static constexpr const char* name = "matrix_b";
};
template <typename Shape, typename Layout>
struct ProbedFragment<nvcuda::wmma::accumulator, Shape, Layout> {
  using type = nvcuda::wmma::fragment<nvcuda::wmma::accumulator, Shape::M, Shape::N, Shape::K, float>;
  using element = float;
  static constexpr int rows = Shape::M, cols = Shape::N;
  static constexpr const char* name = "accumulator";
};

// The most elements one lane's fragment can hold here: 16 (a 16x16x16 fp16 matrix_a). Larger leaves headroom for
// an unexpected count, which the host then reports instead of silently truncating.
inline constexpr int kMaxProbeSlots = 64;

// One warp loads the coordinate-encoded tile (F::rows x F::cols, stored as Layout with leading dimension ld) into a
// fragment. Lane l writes x[i] to slots[l * kMaxProbeSlots + i] as float (exact: every value is an integer <= 2047),
// and lane 0 writes the fragment's num_elements to *count. Launch with exactly one warp.
// [doc:probe_kernel]
template <typename Use, typename Shape, typename Layout>
__global__ void wmma_probe_kernel(const typename ProbedFragment<Use, Shape, Layout>::element* tile, int ld,
                                  float* slots, int* count) {
  using F = ProbedFragment<Use, Shape, Layout>;
  typename F::type fragment;
  if constexpr (std::is_same_v<Use, nvcuda::wmma::accumulator>) {
    nvcuda::wmma::load_matrix_sync(fragment, tile, ld, WmmaLayout<Layout>::mem);
  } else {
    nvcuda::wmma::load_matrix_sync(fragment, tile, ld);
  }
  const int lane = threadIdx.x;
  for (int i = 0; i < fragment.num_elements; ++i) {
    slots[lane * kMaxProbeSlots + i] = static_cast<float>(fragment.x[i]);
  }
  if (lane == 0) *count = fragment.num_elements;
}
// [/doc:probe_kernel]

// Runs the probe for one fragment kind, shape and layout; returns the measured map (lane, i) -> (row, col).
// Errors: CudaError from CUDA calls; std::runtime_error if a fragment reports more than kMaxProbeSlots elements.
template <typename Use, typename Shape, typename Layout>
LaneMap probe_wmma_fragment() {
  using F = ProbedFragment<Use, Shape, Layout>;
  static_assert(probe_encodable(F::rows, F::cols), "tile too large for the fp16-exact coordinate encoding");
  HostMatrix<typename F::element, Layout> tile(F::rows, F::cols);
  for (int r = 0; r < F::rows; ++r)
    for (int c = 0; c < F::cols; ++c) tile(r, c) = from_double<typename F::element>(probe_value(r, c));

  DeviceBuffer<typename F::element> d_tile(tile.storage());
  DeviceBuffer<float> d_slots(static_cast<std::size_t>(kWarpSize) * kMaxProbeSlots);
  DeviceBuffer<int> d_count(1);
  d_slots.poison();  // NaN: a slot the kernel did not write decodes as (?) rather than as a plausible coordinate
  constexpr int kThreads = kWarpSize;  // one warp: the load is warp-collective
  wmma_probe_kernel<Use, Shape, Layout><<<1, kThreads>>>(d_tile.data(), tile.ld(), d_slots.data(), d_count.data());
  check_launch();
  const std::vector<float> slots = d_slots.download();
  const int count = d_count.download()[0];
  if (count < 1 || count > kMaxProbeSlots) {
    throw std::runtime_error(std::string("probe: ") + F::name + " reports " + std::to_string(count) +
                             " elements per lane; expected 1.." + std::to_string(kMaxProbeSlots));
  }
  LaneMap map(F::rows, F::cols, count);
  for (int lane = 0; lane < kWarpSize; ++lane)
    for (int i = 0; i < count; ++i) map.at(lane, i) = probe_coord(slots[lane * kMaxProbeSlots + i]);
  return map;
}

}  // namespace tc
