// The wgmma ceiling: how fast a block of `Warpgroups` m64nNk16 accumulators runs when nothing but its wgmmas does.
//
// Each block is the math of chapters 07 and 08's fastest blocks (two warpgroups, each an m64n256k16 accumulator) with
// the K loop stripped to the math: the same tc::mma_slice on one slice that stays resident in shared memory, no TMA,
// no mbarrier, no epilogue. One block per SM, as those kernels run. What it measures is the rate a kernel with that
// instruction mix can approach on this GPU and no more; the chapters report each step's share of it, as chapter 06
// did for mma.sync.
// Units: TFLOP/s (2 * 64 * N * 16 flops a wgmma), milliseconds. Preconditions: sm_90a; N in {64, 128, 256}.
// Errors: tc::CudaError. Source: PTX ISA, "wgmma.mma_async", "wgmma.wait_group".
#pragma once

#include "tc/check.hpp"
#include "tc/device.hpp"
#include "tc/device_buffer.hpp"
#include "tc/mbarrier.cuh"
#include "tc/timer.hpp"
#include "tc/wgmma_slice.cuh"

#include <cuda_fp16.h>

#include <cstdint>

namespace tc {

// [doc:ceiling]
// Every warpgroup multiplies the same resident slice `iterations` times (4 wgmmas a slice, one group each, at most two
// in flight as in the chapters' rings); out gets one float per thread so that the compiler keeps every wgmma.
// Preconditions: 128 * Warpgroups threads; sm_90a. Source: PTX ISA, "wgmma.mma_async", "wgmma.wait_group".
template <int N, int Warpgroups>
__global__ void __launch_bounds__(128 * Warpgroups) wgmma_ceiling_kernel(float* out, int iterations) {
  constexpr int kThreads = 128 * Warpgroups, kRowBytes = 2 * kSliceK;
  __shared__ __align__(1024) unsigned char a[64 * kRowBytes];  // every warpgroup reads the same 64 rows of A
  __shared__ __align__(1024) unsigned char b[N * kRowBytes];
  // Zeros: the issue rate does not depend on the values, but the power drawn does; zero operands keep the GPU under
  // its power limit, so this is the ceiling at full clock (docs/07, "The ceiling").
  for (int i = threadIdx.x; i < int(sizeof a / 16); i += kThreads) reinterpret_cast<uint4*>(a)[i] = uint4{};
  for (int i = threadIdx.x; i < int(sizeof b / 16); i += kThreads) reinterpret_cast<uint4*>(b)[i] = uint4{};
  fence_proxy_async_shared_cta();  // this thread's stores, before the async proxy (wgmma) reads them
  __syncthreads();                 // every thread's stores, before any warpgroup's wgmma
  float acc[N / 2] = {};
  for (int it = 0; it < iterations; ++it) {
    mma_slice<N, __half>(acc, shared_address(a), shared_address(b));
    wgmma_wait_group<1>();  // as the rings: one group stays in flight while the next is issued
  }
  wgmma_wait_group<0>();  // the last group has written acc
  float sum = 0.0f;
  for (float x : acc) sum += x;
  out[blockIdx.x * kThreads + threadIdx.x] = sum;
}
// [/doc:ceiling]

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
