// Chapter 07's GPU probes: does the hardware do what tc/layouts/wgmma.hpp says?
//   - TMA swizzle: TMA loads a coordinate-encoded box in each swizzle mode (none, 32B, 64B, 128B); every shared byte
//     is then compared with where tc::swizzle_address puts it.
//   - wgmma accumulator: one m64nNk16 (N = 64, 128, 256) on operands built so that D(row, col) = 256 row + col; each
//     thread's registers then name the element they hold, compared with tc::wgmma_m64nNk16_d_coord.
// Neither kernel uses the layout it is probing to interpret its result: the host decodes the values.
// Preconditions: an SM 9.0 GPU (sm_90a code). Errors: tc::CudaError; std::invalid_argument from the tensor map.
#pragma once

#include "wgmma_tile.cuh"

#include "tc/device_buffer.hpp"
#include "tc/layout_maps.hpp"
#include "tc/mbarrier.cuh"
#include "tc/tma.hpp"

#include <cuda.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <vector>

// ---- TMA swizzle -----------------------------------------------------------------------------------------------

// The probed matrix: kSwizzleProbeRows rows of 64 16-bit elements, element (row, col) holding row * 64 + col.
inline constexpr int kSwizzleProbeRows = 16;  // two 8-row groups: each mode's pattern, and that it repeats
inline constexpr int kSwizzleProbeCols = 64;

// [doc:swizzle_probe]
// One block of 32 threads: thread 0 loads the box at (0, 0) of `map` (box_bytes bytes) into a 1024-byte aligned
// shared buffer and every thread waits for it on an mbarrier; then out[i] = the i-th 16-bit element of the buffer,
// as it lies in shared memory. Preconditions: box_bytes <= 2048; sm_90. Source: PTX ISA, "cp.async.bulk.tensor",
// "Tensor copy swizzling modes".
__global__ void tma_swizzle_probe_kernel(const __grid_constant__ CUtensorMap map, int box_bytes, std::uint16_t* out) {
  __shared__ __align__(1024) std::uint16_t box[1024];  // aligned to the largest repeat: the pattern starts at byte 0
  __shared__ std::uint64_t full;
  if (threadIdx.x == 0) {
    tc::mbarrier_init(&full, 1);
    tc::fence_mbarrier_init_release_cluster();  // the barrier exists before the TMA unit completes bytes on it
    tc::mbarrier_arrive_expect_tx(&full, box_bytes);
    tc::cp_async_bulk_tensor_2d_global_to_shared(box, &map, 0, 0, &full);
  }
  __syncthreads();  // no thread waits on the barrier before thread 0 has initialised it
  tc::mbarrier_wait_parity(&full, 0);  // the box has landed: the load is the barrier's first phase
  for (int i = threadIdx.x; i < box_bytes / 2; i += blockDim.x) out[i] = box[i];
}
// [/doc:swizzle_probe]

struct SwizzleProbe {
  tc::Swizzle mode;
  int box_inner = 0, box_bytes = 0;  // elements a box row holds, bytes the box holds
  int differ = 0;                    // shared elements not where tc::swizzle_address puts them
  int moved = 0;                     // elements the mode stores away from their unswizzled place
};

// TMA loads the probe matrix under `mode` in boxes of kSwizzleProbeRows rows of the mode's span (128 bytes for none)
// and the host checks every element: physical byte p must hold the logical byte tc::swizzle_address(mode, p) (the
// function is its own inverse). Errors: tc::CudaError; std::invalid_argument from the tensor map.
inline SwizzleProbe probe_tma_swizzle(tc::Swizzle mode) {
  std::vector<std::uint16_t> matrix(kSwizzleProbeRows * kSwizzleProbeCols);
  for (int r = 0; r < kSwizzleProbeRows; ++r)
    for (int c = 0; c < kSwizzleProbeCols; ++c) matrix[r * kSwizzleProbeCols + c] = std::uint16_t(r * 64 + c);
  const tc::DeviceBuffer<std::uint16_t> d_matrix(matrix);
  SwizzleProbe p{mode};
  const int row_bytes = mode == tc::Swizzle::None ? 128 : tc::swizzle_span_bytes(mode);
  p.box_inner = row_bytes / 2;
  p.box_bytes = kSwizzleProbeRows * row_bytes;
  const CUtensorMap map = tc::make_tma_2d({d_matrix.data(), 2, kSwizzleProbeCols, kSwizzleProbeRows,
                                           kSwizzleProbeCols * 2, p.box_inner, kSwizzleProbeRows, mode},
                                          CU_TENSOR_MAP_DATA_TYPE_UINT16);
  tc::DeviceBuffer<std::uint16_t> out(p.box_bytes / 2);
  out.poison();
  tma_swizzle_probe_kernel<<<1, 32>>>(map, p.box_bytes, out.data());
  tc::check_launch();
  const std::vector<std::uint16_t> got = out.download();
  for (int i = 0; i < p.box_bytes / 2; ++i) {
    const std::uint32_t logical = tc::swizzle_address(mode, std::uint32_t(2 * i));  // a byte of the box, row-major
    const int row = int(logical) / row_bytes, col = int(logical) % row_bytes / 2;
    p.differ += got[i] != std::uint16_t(row * 64 + col);
    p.moved += logical != std::uint32_t(2 * i);
  }
  return p;
}

// ---- wgmma accumulator -----------------------------------------------------------------------------------------

// [doc:accumulator_probe]
// One warpgroup, one wgmma.mma_async m64nNk16 (f16 in, f32 out, scale-d 0) on a 64 x 64 slice of A and an N x 64
// slice of B in the 128-byte swizzle, of which the wgmma reads K 0..15: A(row, 0) = row, A(row, 1) = 1, B(0, col) =
// 256, B(1, col) = col, every other element 0, so that D(row, col) = 256 row + col, exact in fp16 and fp32. Then
// out[thread * N / 2 + i] = the thread's register i. Preconditions: grid 1, block 128; sm_90a.
// Source: PTX ISA, "wgmma.mma_async", "Register Fragments and Shared Memory Matrix Layouts" (D of .m64nNk16).
template <int N>
__global__ void __launch_bounds__(128) wgmma_accumulator_probe_kernel(float* out) {
  __shared__ __align__(1024) __half a[64 * 64];  // 1024-aligned: the descriptors carry base offset 0
  __shared__ __align__(1024) __half b[N * 64];
  // Every element from the logical (row, k) it stands for: physical byte p holds logical byte swizzle_address(p).
  auto logical = [](int element) { return int(tc::swizzle_address(tc::Swizzle::B128, std::uint32_t(2 * element))); };
  for (int e = threadIdx.x; e < 64 * 64; e += 128) {
    const int l = logical(e), row = l / 128, k = l % 128 / 2;
    a[e] = __float2half(k == 0 ? float(row) : k == 1 ? 1.0f : 0.0f);
  }
  for (int e = threadIdx.x; e < N * 64; e += 128) {
    const int l = logical(e), col = l / 128, k = l % 128 / 2;
    b[e] = __float2half(k == 0 ? 256.0f : k == 1 ? float(col) : 0.0f);
  }
  tc::fence_proxy_async_shared_cta();  // this thread's stores, before the async proxy (wgmma) reads them
  __syncthreads();                     // every thread's stores, before the warpgroup's wgmma
  float d[N / 2];
  for (float& x : d) x = -1.0f;  // scale-d 0 ignores it; were it added, no register would decode
  tc::wgmma_fence();
  const std::uint64_t desc_a = tc::slice_descriptor(tc::shared_address(a), 0);  // K 0..15: the wgmma's one K step
  const std::uint64_t desc_b = tc::slice_descriptor(tc::shared_address(b), 0);
  tc::wgmma_m64nNk16<N, __half>(d, desc_a, desc_b, false);
  tc::wgmma_commit_group();
  tc::wgmma_wait_group<0>();  // D is ours again
  for (int i = 0; i < N / 2; ++i) out[threadIdx.x * (N / 2) + i] = d[i];
}
// [/doc:accumulator_probe]

// Runs the probe and decodes it: one LaneMap per warp of the warpgroup, its rows 16 w .. 16 w + 15 drawn as 0..15,
// in the form tc::wgmma_d_map(N, w) predicts. A register that decodes to no element of the warp's rows is kept as it
// decodes (out of the tile), so the comparison fails. Errors: tc::CudaError.
template <int N>
std::vector<tc::LaneMap> probe_wgmma_accumulator() {
  tc::DeviceBuffer<float> out(128 * (N / 2));
  out.poison();
  wgmma_accumulator_probe_kernel<N><<<1, 128>>>(out.data());
  tc::check_launch();
  const std::vector<float> got = out.download();
  std::vector<tc::LaneMap> maps(4, tc::LaneMap(16, N, N / 2));
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < N / 2; ++i) {
      const float v = got[t * (N / 2) + i];
      const bool element = v >= 0.0f && v < 64.0f * 256.0f && v == float(int(v));
      const int row = element ? int(v) / 256 : -1, col = element ? int(v) % 256 : -1;
      maps[t / 32].at(t % 32, i) = {element ? row - 16 * (t / 32) : -1, col};
    }
  return maps;
}
