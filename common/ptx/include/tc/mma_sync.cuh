// mma.sync.aligned.m16n8k16: one warp computes D (16 x 8) = A (16 x 16) * B (16 x 8) + C, with every lane holding the
// fragment elements that tc/layouts/mma_m16n8k16.hpp names. Device code; include from .cu files only.
//
// The wrappers are named after the instruction they issue, operand types in the ISA's order D, A, B, C:
//   mma_m16n8k16_row_col_f32_f16_f16_f32    fp16 in, fp32 accumulate (the GEMM's)
//   mma_m16n8k16_row_col_f16_f16_f16_f16    fp16 in, fp16 accumulate (half the accumulator registers)
//   mma_m16n8k16_row_col_f32_bf16_bf16_f32  bf16 in, fp32 accumulate (PTX allows bf16 only with .f32 C/D)
// ".row.col" is the only layout pair m16n8k16 has: A's registers run along its rows (K), B's along its columns (K).
// Register packing: A is 4 and B is 2 32-bit registers, each two 16-bit elements, the lower-numbered one in bits
// 0..15 (pack_f16x2, pack_bf16x2); C and D are 4 .f32 registers, or 2 .f16x2 registers packed the same way.
// "aligned": all 32 lanes must execute the same mma.sync (no divergence around it), or the behaviour is undefined.
// Preconditions: sm_80 or newer (m16n8k16 with .f16 exists from sm_80; .bf16 needs sm_80 too).
// Errors: none at run time; a build for an older architecture fails in ptxas.
// Source: PTX ISA, "Warp-level matrix instructions: mma" (section 9.7.14.5) and its 9.7.14.5.8 "Matrix Fragments for
// mma.m16n8k16 with floating point type"; "Packed Data Types" for .f16x2 and .bf16x2.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace tc {

// [doc:packing]
// Two 16-bit elements in one 32-bit register: `lo` (the even-numbered element) in bits 0..15, `hi` in bits 16..31.
__host__ __device__ inline std::uint32_t pack_f16x2(__half lo, __half hi) {
  return static_cast<std::uint32_t>(__half_as_ushort(lo)) | static_cast<std::uint32_t>(__half_as_ushort(hi)) << 16;
}
__host__ __device__ inline std::uint32_t pack_bf16x2(__nv_bfloat16 lo, __nv_bfloat16 hi) {
  return static_cast<std::uint32_t>(__bfloat16_as_ushort(lo)) |
         static_cast<std::uint32_t>(__bfloat16_as_ushort(hi)) << 16;
}
// The element in half `h` (0: bits 0..15, 1: bits 16..31) of a packed register.
__host__ __device__ inline __half unpack_f16(std::uint32_t reg, int h) {
  return __ushort_as_half(static_cast<unsigned short>(reg >> (16 * h)));
}
// [/doc:packing]

// [doc:wrappers]
// D = A * B + C; A: 4 x .f16x2, B: 2 x .f16x2, C and D: 4 x .f32 (d may alias c).
__device__ inline void mma_m16n8k16_row_col_f32_f16_f16_f32(float (&d)[4], const std::uint32_t (&a)[4],
                                                            const std::uint32_t (&b)[2], const float (&c)[4]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32\n"
      "    {%0, %1, %2, %3},\n"     // D
      "    {%4, %5, %6, %7},\n"     // A
      "    {%8, %9},\n"             // B
      "    {%10, %11, %12, %13};\n" // C
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
        "f"(c[3]));
}

// D = A * B + C; A: 4 x .f16x2, B: 2 x .f16x2, C and D: 2 x .f16x2 (c0, c1 in register 0; c2, c3 in register 1).
__device__ inline void mma_m16n8k16_row_col_f16_f16_f16_f16(std::uint32_t (&d)[2], const std::uint32_t (&a)[4],
                                                            const std::uint32_t (&b)[2], const std::uint32_t (&c)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16\n"
      "    {%0, %1},\n"             // D
      "    {%2, %3, %4, %5},\n"     // A
      "    {%6, %7},\n"             // B
      "    {%8, %9};\n"             // C
      : "=r"(d[0]), "=r"(d[1])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]));
}

// D = A * B + C; A: 4 x .bf16x2, B: 2 x .bf16x2, C and D: 4 x .f32.
__device__ inline void mma_m16n8k16_row_col_f32_bf16_bf16_f32(float (&d)[4], const std::uint32_t (&a)[4],
                                                              const std::uint32_t (&b)[2], const float (&c)[4]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32\n"
      "    {%0, %1, %2, %3},\n"     // D
      "    {%4, %5, %6, %7},\n"     // A
      "    {%8, %9},\n"             // B
      "    {%10, %11, %12, %13};\n" // C
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
        "f"(c[3]));
}
// [/doc:wrappers]

// The three variants as types, so a kernel, a test or the probe is written once for all of them. Each names its
// input type, its C/D element type, how C/D is held (CReg[kCRegs]) and how to read and write C/D element i (0..3,
// numbered as tc/layouts/mma_m16n8k16.hpp numbers c0..c3).
struct MmaF32Accumulator {  // .f32 C/D: element i is register i
  using Output = float;
  using CReg = float;
  static constexpr int kCRegs = 4;
  __device__ static float get_c(const CReg (&c)[kCRegs], int i) { return c[i]; }
  __device__ static void set_c(CReg (&c)[kCRegs], int i, float v) { c[i] = v; }
};

struct MmaF32F16F16F32 : MmaF32Accumulator {
  using Input = __half;
  static constexpr const char* name = "f32.f16.f16.f32";
  __device__ static void mma(CReg (&d)[kCRegs], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2],
                             const CReg (&c)[kCRegs]) {
    mma_m16n8k16_row_col_f32_f16_f16_f32(d, a, b, c);
  }
  __host__ __device__ static std::uint32_t pack(Input lo, Input hi) { return pack_f16x2(lo, hi); }
};

struct MmaF32BF16BF16F32 : MmaF32Accumulator {
  using Input = __nv_bfloat16;
  static constexpr const char* name = "f32.bf16.bf16.f32";
  __device__ static void mma(CReg (&d)[kCRegs], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2],
                             const CReg (&c)[kCRegs]) {
    mma_m16n8k16_row_col_f32_bf16_bf16_f32(d, a, b, c);
  }
  __host__ __device__ static std::uint32_t pack(Input lo, Input hi) { return pack_bf16x2(lo, hi); }
};

struct MmaF16F16F16F16 {  // .f16 C/D: elements 2j and 2j + 1 packed in register j
  using Input = __half;
  using Output = __half;
  using CReg = std::uint32_t;
  static constexpr int kCRegs = 2;
  static constexpr const char* name = "f16.f16.f16.f16";
  __device__ static void mma(CReg (&d)[kCRegs], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2],
                             const CReg (&c)[kCRegs]) {
    mma_m16n8k16_row_col_f16_f16_f16_f16(d, a, b, c);
  }
  __host__ __device__ static std::uint32_t pack(Input lo, Input hi) { return pack_f16x2(lo, hi); }
  __device__ static float get_c(const CReg (&c)[kCRegs], int i) { return __half2float(unpack_f16(c[i / 2], i % 2)); }
  __device__ static void set_c(CReg (&c)[kCRegs], int i, float v) {
    const int shift = 16 * (i % 2);  // element i is half i % 2 of register i / 2
    c[i / 2] = (c[i / 2] & ~(0xffffu << shift)) | std::uint32_t(__half_as_ushort(__float2half_rn(v))) << shift;
  }
};

}  // namespace tc
