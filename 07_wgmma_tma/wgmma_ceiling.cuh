// Chapter 07 -- the wgmma ceiling: how fast step 3's wgmmas run when nothing else does.
//
// Each block is step 3's block (Step3Tile: two warpgroups, each an m64n256k16 accumulator) with its K loop stripped to
// the math: the same mma_slice on one slice that stays resident in shared memory, no TMA, no mbarrier, no epilogue.
// One block per SM, as step 3 runs. What it measures is the rate a kernel with step 3's instruction mix can approach
// on this GPU and no more; the table reports each step's share of it, as chapter 06 did for mma.sync.
#pragma once

#include "step3_ring.cuh"
#include "wgmma_tile.cuh"

#include "tc/check.hpp"
#include "tc/device.hpp"
#include "tc/device_buffer.hpp"
#include "tc/timer.hpp"

#include <cuda_fp16.h>

#include <cstdint>

// [doc:ceiling]
// Every warpgroup multiplies the same resident slice `iterations` times (4 wgmmas a slice, one group each, at most two
// in flight as in step 3); out gets one float per thread so that the compiler keeps every wgmma. Preconditions:
// Tile::kThreads threads; sm_90a. Source: PTX ISA, "wgmma.mma_async", "wgmma.wait_group".
template <typename Tile>
__global__ void __launch_bounds__(Tile::kThreads) wgmma_ceiling_kernel(float* out, int iterations) {
  __shared__ __align__(1024) unsigned char a[64 * Tile::kRowBytes];  // both warpgroups read the same 64 rows of A
  __shared__ __align__(1024) unsigned char b[Tile::BlockN * Tile::kRowBytes];
  // Zeros: the issue rate does not depend on the values, but the power drawn does; zero operands keep the GPU under
  // its power limit, so this is the ceiling at full clock (docs/07, "The ceiling").
  for (int i = threadIdx.x; i < int(sizeof a / 16); i += Tile::kThreads) reinterpret_cast<uint4*>(a)[i] = uint4{};
  for (int i = threadIdx.x; i < int(sizeof b / 16); i += Tile::kThreads) reinterpret_cast<uint4*>(b)[i] = uint4{};
  tc::fence_proxy_async_shared_cta();  // this thread's stores, before the async proxy (wgmma) reads them
  __syncthreads();                     // every thread's stores, before any warpgroup's wgmma
  float acc[Tile::kAccumulators] = {};
  for (int it = 0; it < iterations; ++it) {
    tc::mma_slice<Tile::BlockN, __half>(acc, tc::shared_address(a), tc::shared_address(b));
    tc::wgmma_wait_group<1>();  // as step 3: one group stays in flight while the next is issued
  }
  tc::wgmma_wait_group<0>();  // the last group has written acc
  float sum = 0.0f;
  for (float x : acc) sum += x;
  out[blockIdx.x * Tile::kThreads + threadIdx.x] = sum;
}
// [/doc:ceiling]

struct WgmmaCeiling {
  using Tile = Step3Tile;
  static constexpr int kIterations = 2048;  // ~1 ms on an H200 at ~0.5 us a slice: long next to launch overhead
  double tflops = 0.0, median_ms = 0.0;
};

// Median of `repeats` timed launches after `warmup`, one block per SM, as TFLOP/s (2 * 64 * BlockN * 16 flops per
// wgmma, 4 a slice, one slice per warpgroup an iteration). Errors: tc::CudaError.
inline WgmmaCeiling measure_wgmma_ceiling(int warmup, int repeats) {
  using T = WgmmaCeiling::Tile;
  WgmmaCeiling r;
  const int blocks = tc::query_device().multiprocessors;
  tc::DeviceBuffer<float> out(std::size_t(blocks) * T::kThreads);
  auto launch = [&] {
    wgmma_ceiling_kernel<T><<<blocks, T::kThreads>>>(out.data(), WgmmaCeiling::kIterations);
    tc::check_launch();
  };
  r.median_ms = tc::benchmark(launch, warmup, repeats).median_ms;
  const double wgmmas = double(blocks) * T::kConsumers * WgmmaCeiling::kIterations * (T::BlockK / 16);
  r.tflops = tc::tflops(wgmmas * 2.0 * 64 * T::BlockN * 16, r.median_ms);
  return r;
}
