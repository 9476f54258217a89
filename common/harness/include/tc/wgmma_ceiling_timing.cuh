// Timing the wgmma ceiling (tc/wgmma_ceiling.cuh): one block per SM, the median of timed launches, as TFLOP/s.
//
// The kernel is a building block (blocks layer); launching and timing it needs the harness's device query, device
// memory and timer, so the launcher lives here, a layer above it.
// Units: TFLOP/s (2 * 64 * N * 16 flops a wgmma), milliseconds. Preconditions: sm_90a; N in {64, 128, 256}.
// Errors: tc::CudaError. Source: PTX ISA, "wgmma.mma_async"; CUDA C++ Programming Guide, "Events".
#pragma once

#include "tc/check.hpp"
#include "tc/device.hpp"
#include "tc/device_buffer.hpp"
#include "tc/timer.hpp"
#include "tc/wgmma_ceiling.cuh"

#include <cstddef>

namespace tc {

struct WgmmaCeiling {
  static constexpr int kIterations = 2048;  // ~1 ms on an H200 at ~0.5 us a slice: long next to launch overhead
  double tflops = 0.0, median_ms = 0.0;
};

// Median of `repeats` timed launches after `warmup`, one block per SM, as TFLOP/s (2 * 64 * N * 16 flops per wgmma, 4
// a slice, one slice per warpgroup an iteration). Errors: tc::CudaError.
template <int N, int Warpgroups>
WgmmaCeiling measure_wgmma_ceiling(int warmup, int repeats) {
  WgmmaCeiling r;
  const int blocks = query_device().multiprocessors;
  DeviceBuffer<float> out(std::size_t(blocks) * 128 * Warpgroups);
  auto launch = [&] {
    wgmma_ceiling_kernel<N, Warpgroups><<<blocks, 128 * Warpgroups>>>(out.data(), WgmmaCeiling::kIterations);
    check_launch();
  };
  r.median_ms = benchmark(launch, warmup, repeats).median_ms;
  const double wgmmas = double(blocks) * Warpgroups * WgmmaCeiling::kIterations * (kSliceK / 16);
  r.tflops = tflops(wgmmas * 2.0 * 64 * N * 16, r.median_ms);
  return r;
}

}  // namespace tc
