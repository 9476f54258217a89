// Chapter 06 -- the mma.sync ceiling: how fast m16n8k16 (fp16 in, fp32 accumulate) runs when nothing else does.
//
// Every warp issues Chains independent chains of mma.sync on operands already in registers: no memory traffic, no
// address arithmetic, no barriers. Chains independent accumulators hide the instruction's latency, and enough warps
// per SM keep all four tensor cores busy. What this measures is the rate a GEMM built on mma.sync can approach on this
// GPU and no more; on Hopper it is below cuBLAS, whose kernels use wgmma (docs/06, "The ceiling").
#pragma once

#include "tc/check.hpp"
#include "tc/device.hpp"
#include "tc/device_buffer.hpp"
#include "tc/layouts/lane_ids.hpp"  // tc::Coord, tc::kWarpSize
#include "tc/mma_sync.cuh"
#include "tc/timer.hpp"

#include <cuda_runtime.h>

#include <cstdint>

// [doc:ceiling]
// in: 6 32-bit words (the A and B registers every lane uses); out: one float per thread, so the compiler must keep
// every chain. Preconditions: blockDim.x a multiple of 32; sm_80 or newer. Source: PTX ISA, "mma" (9.7.14.5).
template <int Chains>
__global__ void mma_ceiling_kernel(const std::uint32_t* in, float* out, int iterations) {
  const std::uint32_t a[4] = {in[0], in[1], in[2], in[3]}, b[2] = {in[4], in[5]};
  float acc[Chains][4] = {};
  for (int it = 0; it < iterations; ++it)
#pragma unroll
    for (int c = 0; c < Chains; ++c) tc::mma_m16n8k16_row_col_f32_f16_f16_f32(acc[c], a, b, acc[c]);
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < Chains; ++c) sum += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
// [/doc:ceiling]

struct MmaCeiling {
  static constexpr int kChains = 8;            // independent accumulators per warp: more than the pipe's latency needs
  static constexpr int kThreads = 256;         // 8 warps per block
  static constexpr int kBlocksPerSm = 4;       // 32 warps per SM, 8 per tensor core
  static constexpr int kIterations = 4096;     // ~1 ms on an H200: long next to launch overhead
  double tflops = 0.0, median_ms = 0.0;
};

// Median of `repeats` timed launches after `warmup`, as TFLOP/s (2 * 16 * 8 * 16 flops per mma.sync).
// Errors: tc::CudaError.
inline MmaCeiling measure_mma_ceiling(int warmup, int repeats) {
  MmaCeiling r;
  const int blocks = tc::query_device().multiprocessors * MmaCeiling::kBlocksPerSm;
  // Zeros: the issue rate does not depend on the values, but the power drawn does. Zero operands keep the kernel
  // under the board's power limit, so this is the ceiling at full clock (docs/06, "The ceiling").
  tc::DeviceBuffer<std::uint32_t> in(std::vector<std::uint32_t>(6, 0u));
  tc::DeviceBuffer<float> out(std::size_t(blocks) * MmaCeiling::kThreads);
  auto launch = [&] {
    mma_ceiling_kernel<MmaCeiling::kChains>
        <<<blocks, MmaCeiling::kThreads>>>(in.data(), out.data(), MmaCeiling::kIterations);
    tc::check_launch();
  };
  r.median_ms = tc::benchmark(launch, warmup, repeats).median_ms;
  const double mmas = double(blocks) * (MmaCeiling::kThreads / tc::kWarpSize) * MmaCeiling::kIterations *
                      MmaCeiling::kChains;
  r.tflops = tc::tflops(mmas * 2.0 * 16 * 8 * 16, r.median_ms);
  return r;
}
