// The two 8-bit floating-point formats Hopper's wgmma multiplies, e4m3 and e5m2, as formulas: every code's value
// (fp8_decode) and the code of a float, rounded to nearest-even and saturated to the largest finite value
// (fp8_encode, what cvt.rn.satfinite does). Host and device code; no GPU needed to evaluate them, and the host tests
// hold them against the CUDA toolkit's own conversions (cuda_fp8.h) for every code and for the floats around each.
//
//   format  bits        bias  largest finite   smallest normal  smallest subnormal  integers held exactly
//   e4m3    s eeee mmm    7   448 = 1.75 x 2^8   2^-6             2^-9                -16 .. 16
//   e5m2    s eeeee mm   15   57344 = 1.75 x 2^15  2^-14          2^-16               -8 .. 8
// e4m3 has no infinity: its exponent 1111 is a normal binade except for mantissa 111, which is NaN (the "fn" variant
// of the OCP 8-bit formats). e5m2 keeps IEEE's: exponent 11111 is infinity (mantissa 00) or NaN.
// Units: codes are the raw byte; values are floats. Source: PTX ISA, "Alternate Floating-Point Data Formats" and
// "cvt" (.e4m3x2 / .e5m2x2, .satfinite); OCP 8-bit Floating Point Specification (OFP8), v1.0.
#pragma once

#include <cuda_runtime_api.h>  // __host__ __device__ for host compilers

#include <cmath>
#include <cstdint>

namespace tc {

// An 8-bit floating-point format: exponent and mantissa widths, the exponent bias, and whether the all-ones exponent
// holds infinity (e5m2) or finite values (e4m3).
struct Fp8Format {
  int exp_bits;
  int man_bits;
  int bias;
  bool ieee_top_binade;  // true: the top exponent is infinity and NaN only (e5m2); false: e4m3's finite top binade
  const char* name;
};
inline constexpr Fp8Format kE4M3{4, 3, 7, false, "e4m3"};
inline constexpr Fp8Format kE5M2{5, 2, 15, true, "e5m2"};

// 2^e as a float, exactly, for the exponents 8-bit formats reach (|e| < 64).
__host__ __device__ constexpr float fp8_pow2(int e) {
  float p = 1.0f;
  for (int i = 0; i < e; ++i) p *= 2.0f;
  for (int i = 0; i > e; --i) p *= 0.5f;
  return p;
}

// The largest finite code and value: e4m3 0x7E = 448, e5m2 0x7B = 57344.
__host__ __device__ constexpr std::uint8_t fp8_max_code(Fp8Format f) {
  const int top = (1 << f.exp_bits) - 1, full = (1 << f.man_bits) - 1;
  return f.ieee_top_binade ? std::uint8_t(((top - 1) << f.man_bits) | full)  // below the infinity binade
                           : std::uint8_t((top << f.man_bits) | (full - 1));  // the NaN code's neighbour
}

// The value of `code` in format f; NaN codes give a float NaN, e5m2's infinities a float infinity.
__host__ __device__ constexpr float fp8_decode(std::uint8_t code, Fp8Format f) {
  const bool negative = (code & 0x80) != 0;
  const int e = (code >> f.man_bits) & ((1 << f.exp_bits) - 1), m = code & ((1 << f.man_bits) - 1);
  const int top = (1 << f.exp_bits) - 1;
  float v = 0.0f;
  if (f.ieee_top_binade && e == top) {
    v = m == 0 ? __builtin_huge_valf() : __builtin_nanf("");
  } else if (!f.ieee_top_binade && e == top && m == (1 << f.man_bits) - 1) {
    v = __builtin_nanf("");
  } else if (e == 0) {  // subnormal: m x 2^(1 - bias - man_bits)
    v = float(m) * fp8_pow2(1 - f.bias - f.man_bits);
  } else {
    v = float((1 << f.man_bits) + m) * fp8_pow2(e - f.bias - f.man_bits);
  }
  return negative ? -v : v;
}

__host__ __device__ constexpr float fp8_max(Fp8Format f) { return fp8_decode(fp8_max_code(f), f); }

// The code of x in format f, rounded to the nearest value, ties to the even code, and saturated: |x| beyond the
// largest finite value (infinity included) gives that value with x's sign; NaN gives the NaN code 0x7F (with x's
// sign bit). This is cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 for one value.
__host__ __device__ inline std::uint8_t fp8_encode(float x, Fp8Format f) {
  const std::uint8_t sign = std::signbit(x) ? 0x80 : 0x00;  // -0 keeps its sign, as cvt does
  if (x != x) return std::uint8_t(0x7F | sign);
  const float a = x < 0.0f ? -x : x;
  if (a >= fp8_max(f)) return std::uint8_t(fp8_max_code(f) | sign);
  // The binade of a: e with 2^e <= a < 2^(e+1), clamped below at the smallest normal's (subnormals share its step).
  int e = 1 - f.bias;
  while (e < (1 << f.exp_bits) - 1 - f.bias && fp8_pow2(e + 1) <= a) ++e;
  // a in units of the binade's step, rounded to nearest, ties to even. Exact in float: a has 24 significant bits and
  // the quotient is a power-of-two scaling of it.
  const float q = a / fp8_pow2(e - f.man_bits);
  int n = int(q);
  const float rest = q - float(n);
  if (rest > 0.5f || (rest == 0.5f && (n & 1) != 0)) ++n;
  // n counts steps from zero: below 2^man_bits a subnormal (only in the lowest binade), else 2^man_bits + mantissa.
  // Rounding up to 2^(man_bits + 1) carries into the next binade, which the code's layout does by itself.
  const int biased = e + f.bias;  // >= 1
  int code = 0;
  if (n < (1 << f.man_bits)) {
    code = n;  // the lowest binade only: e == 1 - bias, so a subnormal code (exponent field 0)
  } else {
    code = ((biased - 1) << f.man_bits) + n;  // n = 2^man + m: adds 1 to the exponent field, m to the mantissa
  }
  if (code > fp8_max_code(f)) code = fp8_max_code(f);
  return std::uint8_t(code | sign);
}

}  // namespace tc
