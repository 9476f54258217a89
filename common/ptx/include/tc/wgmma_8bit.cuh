// wgmma on 8-bit operands: fp8 (e4m3, e5m2) with fp32 accumulation, and s8/u8 with s32 accumulation, K = 32 an
// instruction, as PTX wrappers named after the instruction. Chapter 09 builds on them; chapter 07's tc/wgmma.cuh has
// the 16-bit ones and the fence, commit and wait that surround every wgmma (the same protocol holds here).
//
// What differs from the 16-bit wgmma: K is 32 values an instruction (32 bytes of a 128-byte swizzled row, as for 16
// 16-bit values, so a slice's descriptors advance by the same 32 bytes a step); both operands must be K-major, since
// 8-bit types take no transpose immediate; fp8 keeps the negate immediates (scale-a, scale-b: 1 here), integer types
// have none. D's registers lie as tc::wgmma_m64nNk16_d_coord says (the accumulator layout does not depend on K): fp32
// for fp8 operands, s32 for s8/u8, N/2 registers a thread. The s32 accumulation wraps on overflow (no .satfinite
// here), as chapter 04's IMMA does; fp8 accumulation keeps fewer bits than fp32 (chapter 09 measures how many).
// Preconditions: sm_90a; all 128 threads of the warpgroup execute each call, converged; descriptors as
// tc::wgmma_descriptor makes them for K-major operands in the 128B swizzle. Errors: none reported.
// Source: PTX ISA, "wgmma.mma_async" (9.7.15.5: the .e4m3/.e5m2 and .s8/.u8 forms, .m64nNk32), and "Register
// Fragments and Shared Memory Matrix Layouts" (9.7.15.5.1).
#pragma once

#include <cuda_fp8.h>

#include <cstdint>
#include <type_traits>

// The operand lists of the wrappers below: D's registers as "%0, %1, ..." and as constraints c(d[0]), c(d[1]), ...
// (c is "+f" or "+r"), for N/2 = 32, 64 and 128 registers. Macros because inline asm takes its operands as literal
// lists; #undef at the end of the file.
#define TC_WGMMA_REGS_32 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, \
  %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define TC_WGMMA_OUT_32(c, d) c(d[0]), c(d[1]), c(d[2]), c(d[3]), c(d[4]), c(d[5]), c(d[6]), c(d[7]), c(d[8]), \
  c(d[9]), c(d[10]), c(d[11]), c(d[12]), c(d[13]), c(d[14]), c(d[15]), c(d[16]), c(d[17]), c(d[18]), c(d[19]), \
  c(d[20]), c(d[21]), c(d[22]), c(d[23]), c(d[24]), c(d[25]), c(d[26]), c(d[27]), c(d[28]), c(d[29]), c(d[30]), \
  c(d[31])
#define TC_WGMMA_REGS_64 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, \
  %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, \
  %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define TC_WGMMA_OUT_64(c, d) c(d[0]), c(d[1]), c(d[2]), c(d[3]), c(d[4]), c(d[5]), c(d[6]), c(d[7]), c(d[8]), \
  c(d[9]), c(d[10]), c(d[11]), c(d[12]), c(d[13]), c(d[14]), c(d[15]), c(d[16]), c(d[17]), c(d[18]), c(d[19]), \
  c(d[20]), c(d[21]), c(d[22]), c(d[23]), c(d[24]), c(d[25]), c(d[26]), c(d[27]), c(d[28]), c(d[29]), c(d[30]), \
  c(d[31]), c(d[32]), c(d[33]), c(d[34]), c(d[35]), c(d[36]), c(d[37]), c(d[38]), c(d[39]), c(d[40]), c(d[41]), \
  c(d[42]), c(d[43]), c(d[44]), c(d[45]), c(d[46]), c(d[47]), c(d[48]), c(d[49]), c(d[50]), c(d[51]), c(d[52]), \
  c(d[53]), c(d[54]), c(d[55]), c(d[56]), c(d[57]), c(d[58]), c(d[59]), c(d[60]), c(d[61]), c(d[62]), c(d[63])
#define TC_WGMMA_REGS_128 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, \
  %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, \
  %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, \
  %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, \
  %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, \
  %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, \
  %125, %126, %127"
#define TC_WGMMA_OUT_128(c, d) c(d[0]), c(d[1]), c(d[2]), c(d[3]), c(d[4]), c(d[5]), c(d[6]), c(d[7]), c(d[8]), \
  c(d[9]), c(d[10]), c(d[11]), c(d[12]), c(d[13]), c(d[14]), c(d[15]), c(d[16]), c(d[17]), c(d[18]), c(d[19]), \
  c(d[20]), c(d[21]), c(d[22]), c(d[23]), c(d[24]), c(d[25]), c(d[26]), c(d[27]), c(d[28]), c(d[29]), c(d[30]), \
  c(d[31]), c(d[32]), c(d[33]), c(d[34]), c(d[35]), c(d[36]), c(d[37]), c(d[38]), c(d[39]), c(d[40]), c(d[41]), \
  c(d[42]), c(d[43]), c(d[44]), c(d[45]), c(d[46]), c(d[47]), c(d[48]), c(d[49]), c(d[50]), c(d[51]), c(d[52]), \
  c(d[53]), c(d[54]), c(d[55]), c(d[56]), c(d[57]), c(d[58]), c(d[59]), c(d[60]), c(d[61]), c(d[62]), c(d[63]), \
  c(d[64]), c(d[65]), c(d[66]), c(d[67]), c(d[68]), c(d[69]), c(d[70]), c(d[71]), c(d[72]), c(d[73]), c(d[74]), \
  c(d[75]), c(d[76]), c(d[77]), c(d[78]), c(d[79]), c(d[80]), c(d[81]), c(d[82]), c(d[83]), c(d[84]), c(d[85]), \
  c(d[86]), c(d[87]), c(d[88]), c(d[89]), c(d[90]), c(d[91]), c(d[92]), c(d[93]), c(d[94]), c(d[95]), c(d[96]), \
  c(d[97]), c(d[98]), c(d[99]), c(d[100]), c(d[101]), c(d[102]), c(d[103]), c(d[104]), c(d[105]), c(d[106]), \
  c(d[107]), c(d[108]), c(d[109]), c(d[110]), c(d[111]), c(d[112]), c(d[113]), c(d[114]), c(d[115]), c(d[116]), \
  c(d[117]), c(d[118]), c(d[119]), c(d[120]), c(d[121]), c(d[122]), c(d[123]), c(d[124]), c(d[125]), c(d[126]), \
  c(d[127])

namespace tc {

// wgmma.mma_async.sync.aligned.m64nNk32.f32.e4m3.e4m3, N = 64, 128, 256: D (64 x N, fp32, N/2 registers a thread)
// = A (64 x 32 e4m3, K-major, desc_a) * B (32 x N e4m3, K-major, desc_b) + (accumulate ? D : 0).
__device__ inline void wgmma_m64n64k32_f32_e4m3_e4m3(float (&d)[32], std::uint64_t desc_a, std::uint64_t desc_b,
                                                     bool accumulate) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {" TC_WGMMA_REGS_32 "},"
               " %32, %33, p, 1, 1;\n}\n"
               : TC_WGMMA_OUT_32("+f", d)
               : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)));
}
__device__ inline void wgmma_m64n128k32_f32_e4m3_e4m3(float (&d)[64], std::uint64_t desc_a, std::uint64_t desc_b,
                                                      bool accumulate) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {" TC_WGMMA_REGS_64 "},"
               " %64, %65, p, 1, 1;\n}\n"
               : TC_WGMMA_OUT_64("+f", d)
               : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)));
}
__device__ inline void wgmma_m64n256k32_f32_e4m3_e4m3(float (&d)[128], std::uint64_t desc_a, std::uint64_t desc_b,
                                                      bool accumulate) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 {" TC_WGMMA_REGS_128 "},"
               " %128, %129, p, 1, 1;\n}\n"
               : TC_WGMMA_OUT_128("+f", d)
               : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)));
}

// wgmma.mma_async.sync.aligned.m64nNk32.f32.e5m2.e5m2, N = 64, 128, 256: D (64 x N, fp32, N/2 registers a thread)
// = A (64 x 32 e5m2, K-major, desc_a) * B (32 x N e5m2, K-major, desc_b) + (accumulate ? D : 0).
__device__ inline void wgmma_m64n64k32_f32_e5m2_e5m2(float (&d)[32], std::uint64_t desc_a, std::uint64_t desc_b,
                                                     bool accumulate) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n64k32.f32.e5m2.e5m2 {" TC_WGMMA_REGS_32 "},"
               " %32, %33, p, 1, 1;\n}\n"
               : TC_WGMMA_OUT_32("+f", d)
               : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)));
}
__device__ inline void wgmma_m64n128k32_f32_e5m2_e5m2(float (&d)[64], std::uint64_t desc_a, std::uint64_t desc_b,
                                                      bool accumulate) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n128k32.f32.e5m2.e5m2 {" TC_WGMMA_REGS_64 "},"
               " %64, %65, p, 1, 1;\n}\n"
               : TC_WGMMA_OUT_64("+f", d)
               : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)));
}
__device__ inline void wgmma_m64n256k32_f32_e5m2_e5m2(float (&d)[128], std::uint64_t desc_a, std::uint64_t desc_b,
                                                      bool accumulate) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n256k32.f32.e5m2.e5m2 {" TC_WGMMA_REGS_128 "},"
               " %128, %129, p, 1, 1;\n}\n"
               : TC_WGMMA_OUT_128("+f", d)
               : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)));
}

// wgmma.mma_async.sync.aligned.m64nNk32.s32.s8.s8, N = 64, 128, 256: D (64 x N, s32, exact until it wraps, N/2
// registers a thread) = A (64 x 32 s8, K-major, desc_a) * B (32 x N s8, K-major, desc_b) + (accumulate ? D : 0).
__device__ inline void wgmma_m64n64k32_s32_s8_s8(std::int32_t (&d)[32], std::uint64_t desc_a, std::uint64_t desc_b,
                                                 bool accumulate) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8 {" TC_WGMMA_REGS_32 "},"
               " %32, %33, p;\n}\n"
               : TC_WGMMA_OUT_32("+r", d)
               : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)));
}
__device__ inline void wgmma_m64n128k32_s32_s8_s8(std::int32_t (&d)[64], std::uint64_t desc_a, std::uint64_t desc_b,
                                                  bool accumulate) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8 {" TC_WGMMA_REGS_64 "},"
               " %64, %65, p;\n}\n"
               : TC_WGMMA_OUT_64("+r", d)
               : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)));
}
__device__ inline void wgmma_m64n256k32_s32_s8_s8(std::int32_t (&d)[128], std::uint64_t desc_a, std::uint64_t desc_b,
                                                  bool accumulate) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8 {" TC_WGMMA_REGS_128 "},"
               " %128, %129, p;\n}\n"
               : TC_WGMMA_OUT_128("+r", d)
               : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)));
}

// wgmma.mma_async.sync.aligned.m64nNk32.s32.u8.u8, N = 64, 128, 256: D (64 x N, s32, exact until it wraps, N/2
// registers a thread) = A (64 x 32 u8, K-major, desc_a) * B (32 x N u8, K-major, desc_b) + (accumulate ? D : 0).
__device__ inline void wgmma_m64n64k32_s32_u8_u8(std::int32_t (&d)[32], std::uint64_t desc_a, std::uint64_t desc_b,
                                                 bool accumulate) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n64k32.s32.u8.u8 {" TC_WGMMA_REGS_32 "},"
               " %32, %33, p;\n}\n"
               : TC_WGMMA_OUT_32("+r", d)
               : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)));
}
__device__ inline void wgmma_m64n128k32_s32_u8_u8(std::int32_t (&d)[64], std::uint64_t desc_a, std::uint64_t desc_b,
                                                  bool accumulate) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n128k32.s32.u8.u8 {" TC_WGMMA_REGS_64 "},"
               " %64, %65, p;\n}\n"
               : TC_WGMMA_OUT_64("+r", d)
               : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)));
}
__device__ inline void wgmma_m64n256k32_s32_u8_u8(std::int32_t (&d)[128], std::uint64_t desc_a, std::uint64_t desc_b,
                                                  bool accumulate) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n256k32.s32.u8.u8 {" TC_WGMMA_REGS_128 "},"
               " %128, %129, p;\n}\n"
               : TC_WGMMA_OUT_128("+r", d)
               : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)));
}

// wgmma_m64nNk32<N, Input>: the wrapper above for N in {64, 128, 256} and Input __nv_fp8_e4m3, __nv_fp8_e5m2 (fp32 D),
// std::int8_t or std::uint8_t (s32 D), so that a kernel templated on its tile and precision names one call.
template <typename Input>
using wgmma_k32_accumulator_t = std::conditional_t<std::is_integral_v<Input>, std::int32_t, float>;

template <int N, typename Input>
__device__ inline void wgmma_m64nNk32(wgmma_k32_accumulator_t<Input> (&d)[N / 2], std::uint64_t desc_a,
                                      std::uint64_t desc_b, bool accumulate) {
  static_assert(N == 64 || N == 128 || N == 256, "the shapes the chapters use");
  if constexpr (std::is_same_v<Input, __nv_fp8_e4m3>) {
    if constexpr (N == 64) wgmma_m64n64k32_f32_e4m3_e4m3(d, desc_a, desc_b, accumulate);
    if constexpr (N == 128) wgmma_m64n128k32_f32_e4m3_e4m3(d, desc_a, desc_b, accumulate);
    if constexpr (N == 256) wgmma_m64n256k32_f32_e4m3_e4m3(d, desc_a, desc_b, accumulate);
  } else if constexpr (std::is_same_v<Input, __nv_fp8_e5m2>) {
    if constexpr (N == 64) wgmma_m64n64k32_f32_e5m2_e5m2(d, desc_a, desc_b, accumulate);
    if constexpr (N == 128) wgmma_m64n128k32_f32_e5m2_e5m2(d, desc_a, desc_b, accumulate);
    if constexpr (N == 256) wgmma_m64n256k32_f32_e5m2_e5m2(d, desc_a, desc_b, accumulate);
  } else if constexpr (std::is_same_v<Input, std::int8_t>) {
    if constexpr (N == 64) wgmma_m64n64k32_s32_s8_s8(d, desc_a, desc_b, accumulate);
    if constexpr (N == 128) wgmma_m64n128k32_s32_s8_s8(d, desc_a, desc_b, accumulate);
    if constexpr (N == 256) wgmma_m64n256k32_s32_s8_s8(d, desc_a, desc_b, accumulate);
  } else {
    static_assert(std::is_same_v<Input, std::uint8_t>, "8-bit wgmma takes e4m3, e5m2, s8 or u8 operands");
    if constexpr (N == 64) wgmma_m64n64k32_s32_u8_u8(d, desc_a, desc_b, accumulate);
    if constexpr (N == 128) wgmma_m64n128k32_s32_u8_u8(d, desc_a, desc_b, accumulate);
    if constexpr (N == 256) wgmma_m64n256k32_s32_u8_u8(d, desc_a, desc_b, accumulate);
  }
}

}  // namespace tc

#undef TC_WGMMA_REGS_32
#undef TC_WGMMA_REGS_64
#undef TC_WGMMA_REGS_128
#undef TC_WGMMA_OUT_32
#undef TC_WGMMA_OUT_64
#undef TC_WGMMA_OUT_128
