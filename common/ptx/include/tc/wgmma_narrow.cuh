// The wgmma shapes beyond tc/wgmma.cuh's: m64nNk16 with N = 8, 16 and 32 (narrow) and 48, 80, 160, 192 and 224 (the
// widths between), bf16 inputs and fp32 accumulators; and wgmma_m64nNk16_bf16<N>, which names every N a tile here uses.
//
// Why narrow: wgmma's M is 64 rows a warpgroup, fixed, but its N runs from 8 to 256 in steps of 8. Where a GEMM has
// few columns (a few tokens through an LLM's linear layer, chapter 10: the weights take wgmma's M, the tokens its N),
// an N of 8 or 16 multiplies what exists instead of padding the tokens to 64 and computing mostly zeros.
// Why the widths between: a tile's N sets how many tiles a matrix makes. Chapter 10's wide tile puts the weights in
// wgmma's N and takes the width that makes about one tile an SM (10240 weights: 128 tiles of 80), which the powers of
// two cannot (160 tiles of 64 give 28 SMs a second tile; 80 tiles of 128 leave 52 SMs idle).
// The accumulator is N / 2 fp32 registers a thread, laid out as for every N (tc::wgmma_m64nNk16_d_coord), and B's
// slice is N rows of 128 bytes in the 128-byte swizzle: whole swizzle atoms (8 rows, 1 KB) for every multiple of 8.
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

// wgmma.mma_async.sync.aligned.m64n48k16.f32.bf16.bf16: D (64 x 48, f32, 24 registers a thread in the layout of
// tc::wgmma_m64nNk16_d_coord) = A (64 x 16, K-major, desc_a) * B (16 x 48, K-major, desc_b) + (accumulate ? D : 0).
// As the wrappers of tc/wgmma.cuh: asynchronous, both operands from shared memory, scale-a = scale-b = 1, no transpose.
__device__ inline void wgmma_m64n48k16_f32_bf16_bf16(float (&d)[24], std::uint64_t desc_a, std::uint64_t desc_b,
                                                     bool accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %26, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n48k16.f32.bf16.bf16\n"
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
      "%16, %17, %18, %19, %20, %21, %22, %23},\n"
      "%24, %25, p, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23])
      : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)));
}

// wgmma.mma_async.sync.aligned.m64n80k16.f32.bf16.bf16: D (64 x 80, f32, 40 registers a thread in the layout of
// tc::wgmma_m64nNk16_d_coord) = A (64 x 16, K-major, desc_a) * B (16 x 80, K-major, desc_b) + (accumulate ? D : 0).
// As the wrappers of tc/wgmma.cuh: asynchronous, both operands from shared memory, scale-a = scale-b = 1, no transpose.
__device__ inline void wgmma_m64n80k16_f32_bf16_bf16(float (&d)[40], std::uint64_t desc_a, std::uint64_t desc_b,
                                                     bool accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %42, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n80k16.f32.bf16.bf16\n"
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,"
      "%32, %33, %34, %35, %36, %37, %38, %39},\n"
      "%40, %41, p, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39])
      : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)));
}

// wgmma.mma_async.sync.aligned.m64n160k16.f32.bf16.bf16: D (64 x 160, f32, 80 registers a thread in the layout of
// tc::wgmma_m64nNk16_d_coord) = A (64 x 16, K-major, desc_a) * B (16 x 160, K-major, desc_b) + (accumulate ? D : 0).
// As the wrappers of tc/wgmma.cuh: asynchronous, both operands from shared memory, scale-a = scale-b = 1, no transpose.
__device__ inline void wgmma_m64n160k16_f32_bf16_bf16(float (&d)[80], std::uint64_t desc_a, std::uint64_t desc_b,
                                                      bool accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %82, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n160k16.f32.bf16.bf16\n"
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,"
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,"
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63,"
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79},\n"
      "%80, %81, p, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
        "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79])
      : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)));
}

// wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16: D (64 x 192, f32, 96 registers a thread in the layout of
// tc::wgmma_m64nNk16_d_coord) = A (64 x 16, K-major, desc_a) * B (16 x 192, K-major, desc_b) + (accumulate ? D : 0).
// As the wrappers of tc/wgmma.cuh: asynchronous, both operands from shared memory, scale-a = scale-b = 1, no transpose.
__device__ inline void wgmma_m64n192k16_f32_bf16_bf16(float (&d)[96], std::uint64_t desc_a, std::uint64_t desc_b,
                                                      bool accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %98, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16\n"
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,"
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,"
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63,"
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79,"
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95},\n"
      "%96, %97, p, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
        "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
        "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
        "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
      : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)));
}

// wgmma.mma_async.sync.aligned.m64n224k16.f32.bf16.bf16: D (64 x 224, f32, 112 registers a thread in the layout of
// tc::wgmma_m64nNk16_d_coord) = A (64 x 16, K-major, desc_a) * B (16 x 224, K-major, desc_b) + (accumulate ? D : 0).
// As the wrappers of tc/wgmma.cuh: asynchronous, both operands from shared memory, scale-a = scale-b = 1, no transpose.
__device__ inline void wgmma_m64n224k16_f32_bf16_bf16(float (&d)[112], std::uint64_t desc_a, std::uint64_t desc_b,
                                                      bool accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %114, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n224k16.f32.bf16.bf16\n"
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,"
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,"
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63,"
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79,"
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95,"
      "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111},\n"
      "%112, %113, p, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
        "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
        "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
        "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
        "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111])
      : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)));
}

// wgmma_m64nNk16_bf16<N>: the bf16 wrapper for N in {8, 16, 32, 48, 80, 160, 192, 224} (above) or {64, 128, 256}
// (tc/wgmma.cuh).
template <int N>
__device__ inline void wgmma_m64nNk16_bf16(float (&d)[N / 2], std::uint64_t desc_a, std::uint64_t desc_b,
                                           bool accumulate) {
  static_assert(N == 8 || N == 16 || N == 32 || N == 48 || N == 64 || N == 80 || N == 128 || N == 160 || N == 192 ||
                    N == 224 || N == 256,
                "the N the wrappers exist for");
  if constexpr (N == 8) wgmma_m64n8k16_f32_bf16_bf16(d, desc_a, desc_b, accumulate);
  else if constexpr (N == 16) wgmma_m64n16k16_f32_bf16_bf16(d, desc_a, desc_b, accumulate);
  else if constexpr (N == 32) wgmma_m64n32k16_f32_bf16_bf16(d, desc_a, desc_b, accumulate);
  else if constexpr (N == 48) wgmma_m64n48k16_f32_bf16_bf16(d, desc_a, desc_b, accumulate);
  else if constexpr (N == 80) wgmma_m64n80k16_f32_bf16_bf16(d, desc_a, desc_b, accumulate);
  else if constexpr (N == 160) wgmma_m64n160k16_f32_bf16_bf16(d, desc_a, desc_b, accumulate);
  else if constexpr (N == 192) wgmma_m64n192k16_f32_bf16_bf16(d, desc_a, desc_b, accumulate);
  else if constexpr (N == 224) wgmma_m64n224k16_f32_bf16_bf16(d, desc_a, desc_b, accumulate);
  else wgmma_m64nNk16<N, __nv_bfloat16>(d, desc_a, desc_b, accumulate);
}

}  // namespace tc
