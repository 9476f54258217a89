// The wgmma ceiling: how fast a block of `Warpgroups` m64nNk16 accumulators runs when nothing but its wgmmas does.
//
// Each block is the math of chapters 07 and 08's fastest blocks (two warpgroups, each an m64n256k16 accumulator) with
// the K loop stripped to the math: the same tc::mma_slice on one slice that stays resident in shared memory, no TMA,
// no mbarrier, no epilogue. One block per SM, as those kernels run. What it measures is the rate a kernel with that
// instruction mix can approach on this GPU and no more; the chapters report each step's share of it, as chapter 06
// did for mma.sync.
// This file is the kernel, a building block; tc/wgmma_ceiling_timing.cuh (the harness) launches and times it.
// Preconditions: sm_90a; N in {64, 128, 256}. Source: PTX ISA, "wgmma.mma_async", "wgmma.wait_group".
#pragma once

#include "tc/mbarrier.cuh"
#include "tc/wgmma_slice.cuh"

#include <cuda_fp16.h>

#include <cstdint>

namespace tc {

// [doc:ceiling]
// Every warpgroup multiplies the same resident slice `iterations` times (4 wgmmas a slice, one group each, at most two
// in flight as in the chapters' rings); out gets one value per thread so that the compiler keeps every wgmma.
// Input: the operands' type, 16-bit (m64nNk16, fp32 D) or 8-bit (m64nNk32: fp32 D for fp8, s32 for s8 and u8); a
// slice is 128 bytes of K either way (tc/wgmma_slice.cuh). Preconditions: 128 * Warpgroups threads; sm_90a.
// Source: PTX ISA, "wgmma.mma_async", "wgmma.wait_group".
template <int N, int Warpgroups, typename Input>
__device__ inline void wgmma_ceiling_body(float* out, int iterations) {
  constexpr int kThreads = 128 * Warpgroups;
  __shared__ __align__(1024) unsigned char a[64 * kSliceBytes];  // every warpgroup reads the same 64 rows of A
  __shared__ __align__(1024) unsigned char b[N * kSliceBytes];
  // Zeros: the issue rate does not depend on the values, but the power drawn does; zero operands keep the GPU under
  // its power limit, so this is the ceiling at full clock (docs/07, "The ceiling").
  for (int i = threadIdx.x; i < int(sizeof a / 16); i += kThreads) reinterpret_cast<uint4*>(a)[i] = uint4{};
  for (int i = threadIdx.x; i < int(sizeof b / 16); i += kThreads) reinterpret_cast<uint4*>(b)[i] = uint4{};
  fence_proxy_async_shared_cta();  // this thread's stores, before the async proxy (wgmma) reads them
  __syncthreads();                 // every thread's stores, before any warpgroup's wgmma
  wgmma_accumulator_t<Input> acc[1][N / 2] = {};
  for (int it = 0; it < iterations; ++it) {
    if constexpr (sizeof(Input) == 2)
      mma_slice<N, Input>(acc[0], shared_address(a), shared_address(b));
    else  // the 8-bit K steps (m64nNk32), as chapter 09's kernels issue them
      mma_slice_row_blocks<1, N, Input>(acc, slice_descriptor(shared_address(a), 0),
                                        slice_descriptor(shared_address(b), 0));
    wgmma_wait_group<1>();  // as the rings: one group stays in flight while the next is issued
  }
  wgmma_wait_group<0>();  // the last group has written acc
  float sum = 0.0f;
  for (auto x : acc[0]) sum += float(x);
  out[blockIdx.x * kThreads + threadIdx.x] = sum;
}

// Chapters 07 and 08's ceiling: 16-bit operands (the kernel those chapters' results name).
template <int N, int Warpgroups>
__global__ void __launch_bounds__(128 * Warpgroups) wgmma_ceiling_kernel(float* out, int iterations) {
  wgmma_ceiling_body<N, Warpgroups, __half>(out, iterations);
}

// Any input type, 8-bit included (chapter 09).
template <int N, int Warpgroups, typename Input>
__global__ void __launch_bounds__(128 * Warpgroups) wgmma_ceiling_kernel(float* out, int iterations) {
  wgmma_ceiling_body<N, Warpgroups, Input>(out, iterations);
}
// [/doc:ceiling]

}  // namespace tc
