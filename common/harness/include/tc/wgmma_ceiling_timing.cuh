// Timing the wgmma ceiling (tc/wgmma_ceiling.cuh): one block per SM, the median of timed launches, as TFLOP/s.
//
// The kernel is a building block (blocks layer); launching and timing it needs the harness's device query, device
// memory and timer, so the launcher lives here, a layer above it.
// Units: TFLOP/s (2 * 64 * N * K flops a wgmma, K = 16 for 16-bit inputs, 32 for 8-bit), milliseconds.
// Preconditions: sm_90a; N in {64, 128, 256}. Errors: tc::CudaError. Source: PTX ISA, "wgmma.mma_async"; CUDA C++
// Programming Guide, "Events".
#pragma once

#include "tc/check.hpp"
#include "tc/device.hpp"
#include "tc/device_buffer.hpp"
#include "tc/timer.hpp"
#include "tc/wgmma_ceiling.cuh"

#include <cstddef>
#include <type_traits>

namespace tc {

struct WgmmaCeiling {
  static constexpr int kIterations = 2048;  // ~1 ms on an H200 at ~0.5 us a slice: long next to launch overhead
  double tflops = 0.0, median_ms = 0.0;
};

// Median of `repeats` timed launches after `warmup`, one block per SM, as TFLOP/s (TOPS for s8 and u8): each
// warpgroup multiplies one slice an iteration, 2 * 64 * N * kSliceElements<Input> operations. Input: __half (chapters
// 07 and 08's kernel) or any type tc::wgmma_ceiling_kernel takes. Errors: tc::CudaError.
template <int N, int Warpgroups, typename Input = __half>
WgmmaCeiling measure_wgmma_ceiling(int warmup, int repeats) {
  WgmmaCeiling r;
  const int blocks = query_device().multiprocessors;
  DeviceBuffer<float> out(std::size_t(blocks) * 128 * Warpgroups);
  auto launch = [&] {
    if constexpr (std::is_same_v<Input, __half>)
      wgmma_ceiling_kernel<N, Warpgroups><<<blocks, 128 * Warpgroups>>>(out.data(), WgmmaCeiling::kIterations);
    else
      wgmma_ceiling_kernel<N, Warpgroups, Input><<<blocks, 128 * Warpgroups>>>(out.data(), WgmmaCeiling::kIterations);
    check_launch();
  };
  r.median_ms = benchmark(launch, warmup, repeats).median_ms;
  const double slices = double(blocks) * Warpgroups * WgmmaCeiling::kIterations;
  r.tflops = tflops(slices * 2.0 * 64 * N * kSliceElements<Input>, r.median_ms);
  return r;
}

}  // namespace tc
