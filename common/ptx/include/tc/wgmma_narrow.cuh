// The narrow wgmma shapes: m64nNk16 with N = 8, 16 and 32, bf16 inputs and fp32 accumulators, and
// wgmma_m64nNk16_bf16<N>, which names every N a tile here uses, narrow or not (tc/wgmma.cuh has N = 64, 128, 256).
//
// Why narrow: wgmma's M is 64 rows a warpgroup, fixed, but its N runs from 8 to 256 in steps of 8. Where a GEMM has
// few columns (a few tokens through an LLM's linear layer, chapter 10: the weights take wgmma's M, the tokens its N),
// an N of 8 or 16 multiplies what exists instead of padding the tokens to 64 and computing mostly zeros. The
// accumulator is N / 2 fp32 registers a thread, laid out as for every N (tc::wgmma_m64nNk16_d_coord), and B's slice
// is N rows of 128 bytes in the 128-byte swizzle: one swizzle atom (8 rows, 1 KB) for N = 8.
// Protocol, preconditions and errors: as tc/wgmma.cuh (fence, issue, commit, wait; sm_90a; all 128 threads of the
// warpgroup, converged). Source: PTX ISA, "wgmma.mma_async" (the valid .m64nNk16 shapes: N a multiple of 8 up to 256)
// and "Register Fragments and Shared Memory Matrix Layouts" (wgmma's D).
#pragma once

#include "tc/wgmma.cuh"

#include <cuda_bf16.h>

#include <cstdint>

namespace tc {

// wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16: D (64 x 8, f32, 4 registers a thread in the layout of
// tc::wgmma_m64nNk16_d_coord) = A (64 x 16, K-major, desc_a) * B (16 x 8, K-major, desc_b) + (accumulate ? D : 0).
// As the wrappers of tc/wgmma.cuh: asynchronous, both operands from shared memory, scale-a = scale-b = 1, no transpose.
__device__ inline void wgmma_m64n8k16_f32_bf16_bf16(float (&d)[4], std::uint64_t desc_a, std::uint64_t desc_b,
                                                   bool accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %6, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16\n"
      "{%0, %1, %2, %3},\n"
      "%4, %5, p, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)));
}

// wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16: D (64 x 16, f32, 8 registers a thread in the layout of
// tc::wgmma_m64nNk16_d_coord) = A (64 x 16, K-major, desc_a) * B (16 x 16, K-major, desc_b) + (accumulate ? D : 0).
// As the wrappers of tc/wgmma.cuh: asynchronous, both operands from shared memory, scale-a = scale-b = 1, no transpose.
__device__ inline void wgmma_m64n16k16_f32_bf16_bf16(float (&d)[8], std::uint64_t desc_a, std::uint64_t desc_b,
                                                    bool accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %10, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16\n"
      "{%0, %1, %2, %3, %4, %5, %6, %7},\n"
      "%8, %9, p, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
      : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)));
}

// wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16: D (64 x 32, f32, 16 registers a thread in the layout of
// tc::wgmma_m64nNk16_d_coord) = A (64 x 16, K-major, desc_a) * B (16 x 32, K-major, desc_b) + (accumulate ? D : 0).
// As the wrappers of tc/wgmma.cuh: asynchronous, both operands from shared memory, scale-a = scale-b = 1, no transpose.
__device__ inline void wgmma_m64n32k16_f32_bf16_bf16(float (&d)[16], std::uint64_t desc_a, std::uint64_t desc_b,
                                                    bool accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %18, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16\n"
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15},\n"
      "%16, %17, p, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
      : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)));
}

// wgmma_m64nNk16_bf16<N>: the bf16 wrapper for N in {8, 16, 32} (above) or {64, 128, 256} (tc/wgmma.cuh).
template <int N>
__device__ inline void wgmma_m64nNk16_bf16(float (&d)[N / 2], std::uint64_t desc_a, std::uint64_t desc_b,
                                           bool accumulate) {
  static_assert(N == 8 || N == 16 || N == 32 || N == 64 || N == 128 || N == 256, "the N the wrappers exist for");
  if constexpr (N == 8) wgmma_m64n8k16_f32_bf16_bf16(d, desc_a, desc_b, accumulate);
  else if constexpr (N == 16) wgmma_m64n16k16_f32_bf16_bf16(d, desc_a, desc_b, accumulate);
  else if constexpr (N == 32) wgmma_m64n32k16_f32_bf16_bf16(d, desc_a, desc_b, accumulate);
  else wgmma_m64nNk16<N, __nv_bfloat16>(d, desc_a, desc_b, accumulate);
}

}  // namespace tc
