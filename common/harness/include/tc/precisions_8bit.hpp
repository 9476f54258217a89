// The 8-bit precisions of wgmma (chapter 09): fp8 (e4m3, e5m2) with fp32 accumulation, and s8/u8 with s32
// accumulation, as element traits and as the GEMM precisions tc/padded_gemm.hpp and the driver take.
//
// ElementTraits<__nv_fp8_e4m3> and <__nv_fp8_e5m2> extend tc/types.hpp's table: the name PTX gives the type, its unit
// roundoff (2^-4 for e4m3's 3 mantissa bits, 2^-3 for e5m2's 2), exact conversion to double (every fp8 value is a
// double) and conversion from double rounded to nearest even and saturated to the largest finite value, as
// cvt.rn.satfinite does (tc::fp8_encode, held to cuda_fp8.h by the host tests).
// S8S32 and U8S32 are chapter 04's precisions for kernels that are not WMMA: int32 alpha and beta (the scale type of
// CUBLAS_COMPUTE_32I), s32 C. E4M3F32 and E4M3BF16: e4m3 A and B, fp32 accumulation, fp32 or bf16 D.
// Source: PTX ISA, "Alternate Floating-Point Data Formats", "wgmma.mma_async" (.e4m3, .e5m2, .s8, .u8 operands).
#pragma once

#include "tc/layouts/fp8.hpp"
#include "tc/types.hpp"

#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace tc {

// An fp8 value's raw byte, and the value of a byte: the formats' formulas (tc/layouts/fp8.hpp) on the storage type.
template <typename Fp8>
inline constexpr Fp8Format kFp8FormatOf = std::is_same_v<Fp8, __nv_fp8_e4m3> ? kE4M3 : kE5M2;
template <typename Fp8>
std::uint8_t fp8_bits(Fp8 x) {
  std::uint8_t b;
  std::memcpy(&b, &x, 1);
  return b;
}
template <typename Fp8>
Fp8 fp8_from_bits(std::uint8_t b) {
  Fp8 x;
  std::memcpy(&x, &b, 1);
  return x;
}

template <typename Fp8>
struct Fp8Traits {
  static constexpr bool is_integer = false;
  static constexpr double unit_roundoff = kFp8FormatOf<Fp8>.man_bits == 3 ? 0x1p-4 : 0x1p-3;
  static double to_double(Fp8 x) { return fp8_decode(fp8_bits(x), kFp8FormatOf<Fp8>); }
  // Precondition: x within float's range (callers pass quantized values); beyond the format's largest finite value
  // it saturates.
  static Fp8 from_double(double x) {
    return fp8_from_bits<Fp8>(fp8_encode(static_cast<float>(x), kFp8FormatOf<Fp8>));
  }
};
template <>
struct ElementTraits<__nv_fp8_e4m3> : Fp8Traits<__nv_fp8_e4m3> {
  static constexpr const char* name = "e4m3";
};
template <>
struct ElementTraits<__nv_fp8_e5m2> : Fp8Traits<__nv_fp8_e5m2> {
  static constexpr const char* name = "e5m2";
};

// s8 or u8 in, s32 accumulate and out: wgmma's .s32.s8.s8 and .s32.u8.u8 (chapter 09's INT8 GEMM).
struct S8S32 : GemmPrecision<std::int8_t, std::int32_t> {
  static constexpr const char* name = "s8->s32";
};
struct U8S32 : GemmPrecision<std::uint8_t, std::int32_t> {
  static constexpr const char* name = "u8->s32";
};

// e4m3 in, fp32 accumulate, fp32 or bf16 out: wgmma's .f32.e4m3.e4m3, with the per-tensor scales applied in the
// epilogue (chapter 09's step 1).
struct E4M3F32 : GemmPrecision<__nv_fp8_e4m3, float> {
  static constexpr const char* name = "e4m3->f32";
};
struct E4M3BF16 : GemmPrecision<__nv_fp8_e4m3, float, __nv_bfloat16> {
  static constexpr const char* name = "e4m3->bf16";
};
// e5m2 in (wgmma's .f32.e5m2.e5m2): two mantissa bits for e4m3's three, a range to 57344; the same kernels.
struct E5M2BF16 : GemmPrecision<__nv_fp8_e5m2, float, __nv_bfloat16> {
  static constexpr const char* name = "e5m2->bf16";
};

}  // namespace tc
