// Element types the tutorial's tensor-core paths use, and what the host needs to know about each.
//
// ElementTraits<T>: name (as in PTX type names), whether it is an integer, its unit roundoff u (half the distance
// from 1 to the next representable number: 2^-11 for fp16, 2^-8 for bf16, 2^-24 for fp32, 2^-53 for fp64, 0 for
// integers), and exact conversion to double / round-to-nearest conversion from double.
// tf32 is not a storage type: it is fp32 storage whose low 13 significand bits the tensor core ignores. round_to_tf32
// gives the value the hardware uses, so a reference can be computed on exactly those inputs.
// Sources: PTX ISA, "Fundamental Types" and "Alternate Floating-Point Data Formats"; cvt.rna.tf32.f32 in "cvt".
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace tc {

template <typename T>
struct ElementTraits;

template <>
struct ElementTraits<__half> {
  static constexpr const char* name = "f16";
  static constexpr bool is_integer = false;
  static constexpr double unit_roundoff = 0x1p-11;
  static double to_double(__half x) { return static_cast<double>(__half2float(x)); }
  static __half from_double(double x) { return __double2half(x); }
};

template <>
struct ElementTraits<__nv_bfloat16> {
  static constexpr const char* name = "bf16";
  static constexpr bool is_integer = false;
  static constexpr double unit_roundoff = 0x1p-8;
  static double to_double(__nv_bfloat16 x) { return static_cast<double>(__bfloat162float(x)); }
  static __nv_bfloat16 from_double(double x) { return __double2bfloat16(x); }
};

template <>
struct ElementTraits<float> {
  static constexpr const char* name = "f32";
  static constexpr bool is_integer = false;
  static constexpr double unit_roundoff = 0x1p-24;
  static double to_double(float x) { return x; }
  static float from_double(double x) { return static_cast<float>(x); }
};

template <>
struct ElementTraits<double> {
  static constexpr const char* name = "f64";
  static constexpr bool is_integer = false;
  static constexpr double unit_roundoff = 0x1p-53;
  static double to_double(double x) { return x; }
  static double from_double(double x) { return x; }
};

template <typename Int>
struct IntegerTraits {
  static constexpr bool is_integer = true;
  static constexpr double unit_roundoff = 0.0;
  static double to_double(Int x) { return static_cast<double>(x); }
  // Precondition: x is an integer in Int's range (callers pass exact integer results).
  static Int from_double(double x) { return static_cast<Int>(x); }
};
template <>
struct ElementTraits<std::int8_t> : IntegerTraits<std::int8_t> {
  static constexpr const char* name = "s8";
};
template <>
struct ElementTraits<std::uint8_t> : IntegerTraits<std::uint8_t> {
  static constexpr const char* name = "u8";
};
template <>
struct ElementTraits<std::int32_t> : IntegerTraits<std::int32_t> {
  static constexpr const char* name = "s32";
};

template <typename T>
double to_double(T x) {
  return ElementTraits<T>::to_double(x);
}
template <typename T>
T from_double(double x) {
  return ElementTraits<T>::from_double(x);
}

// A GEMM's precision by its element types alone: Input (A and B), Accumulator (alpha, beta and the sums) and Output
// (C; the Accumulator unless named), for kernels that are not WMMA (chapters 05 to 08), so that they do not borrow a
// WMMA type and its rules.
template <typename Input_, typename Accumulator_, typename Output_ = Accumulator_>
struct GemmPrecision {
  using Input = Input_;
  using Accumulator = Accumulator_;
  using Output = Output_;
};
// fp16 in, fp32 accumulate: mma.sync.m16n8k16's .f32.f16.f16.f32 (PTX ISA, "Warp-level matrix instructions: mma").
struct F16F32 : GemmPrecision<__half, float> {
  static constexpr const char* name = "f16->f32";
};
// bf16 in, fp32 accumulate: wgmma's .f32.bf16.bf16 (chapter 07), the same kernels as f16 with the other input type.
struct BF16F32 : GemmPrecision<__nv_bfloat16, float> {
  static constexpr const char* name = "bf16->f32";
};

// bf16 in, fp32 accumulate, bf16 out (chapter 08's 16-bit output): each result is rounded once, to nearest, from
// alpha * sum + beta * C computed in fp32. cuBLAS's CUDA_R_16BF output with CUBLAS_COMPUTE_32F is the same contract.
struct BF16F32BF16 : GemmPrecision<__nv_bfloat16, float, __nv_bfloat16> {
  static constexpr const char* name = "bf16->bf16";
};

// A precision's output type (C): its Output where it names one, else its Accumulator (the WMMA precisions, whose C
// holds the accumulator type).
template <typename P, typename = void>
struct OutputOf {
  using type = typename P::Accumulator;
};
template <typename P>
struct OutputOf<P, std::void_t<typename P::Output>> {
  using type = typename P::Output;
};
template <typename P>
using output_t = typename OutputOf<P>::type;

// The value an fp32 input has once the tensor core reads it as tf32: the significand rounded to 10 explicit bits,
// to nearest with ties away from zero, as cvt.rna.tf32.f32 (and __float_to_tf32) does. Inf and NaN pass unchanged.
inline float round_to_tf32(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  if ((bits & 0x7F800000u) == 0x7F800000u) return x;  // exponent all ones: Inf or NaN
  // fp32 has 23 explicit significand bits and tf32 keeps 10, so 13 are dropped. Adding half of their weight
  // (1 << 12) to the sign-magnitude bits and truncating rounds the magnitude to nearest, ties away from zero.
  bits += 1u << 12;
  bits &= ~((1u << 13) - 1u);
  std::memcpy(&x, &bits, sizeof bits);
  return x;
}

}  // namespace tc
