// nvcuda::wmma vocabulary shared by the WMMA chapters: layout tags as WMMA sees them, and the five WMMA precisions.
// Device code; include from .cu files only.
//
// WmmaLayout<Tag>::type is the fragment layout type for matrix_a/matrix_b fragments (nvcuda::wmma::row_major or
// col_major) and WmmaLayout<Tag>::mem the layout_t that accumulator loads and stores take at run time.
//
// A precision (WmmaF16, WmmaBF16, WmmaTF32, WmmaF64, WmmaS8, WmmaU8) names everything a kernel needs to be written
// once for all of them:
//   Input        the element type of A and B in memory (tf32 is stored as float);
//   Fragment     the element type the matrix_a/matrix_b fragments are declared with (precision::tf32 for tf32);
//   Accumulator  the element type of the accumulator fragment, of C and D, and of alpha and beta (as in cuBLAS:
//                float for fp32 compute, double, int32 for integer compute);
//   M, N, K      the fragment shape: D (M x N) += A (M x K) * B (K x N);
//   to_fragment_precision(frag)  what must happen between load_matrix_sync and mma_sync: tf32 fragments are loaded
//                as fp32 and must be rounded with __float_to_tf32; the other precisions need nothing.
// Minimum SM: 7.0 for f16, 7.2 for s8 and u8, 8.0 for bf16, tf32 and f64.
// Source: CUDA C++ Programming Guide, "Warp Matrix Functions" ("Element Types and Matrix Sizes", "Alternate Floating
// Point", "Double Precision", "Sub-byte Operations" for what is not covered here).
#pragma once

#include "tc/layouts/tags.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <cstdint>

namespace tc {

// [doc:wmma_layout]
template <typename Layout>
struct WmmaLayout;

template <>
struct WmmaLayout<RowMajor> {
  using type = nvcuda::wmma::row_major;
  static constexpr nvcuda::wmma::layout_t mem = nvcuda::wmma::mem_row_major;
};

template <>
struct WmmaLayout<ColMajor> {
  using type = nvcuda::wmma::col_major;
  static constexpr nvcuda::wmma::layout_t mem = nvcuda::wmma::mem_col_major;
};

template <typename Layout>
using wmma_layout_t = typename WmmaLayout<Layout>::type;
// [/doc:wmma_layout]

// [doc:precisions]
// The precisions whose fragments need no conversion after loading.
template <typename Input_, typename Accumulator_, int M_, int N_, int K_>
struct WmmaPrecisionBase {
  using Input = Input_;
  using Fragment = Input_;
  using Accumulator = Accumulator_;
  static constexpr int M = M_;
  static constexpr int N = N_;
  static constexpr int K = K_;
  template <typename Frag>
  __device__ static void to_fragment_precision(Frag& /*fragment*/) {}
};

struct WmmaF16 : WmmaPrecisionBase<__half, float, 16, 16, 16> {
  static constexpr const char* name = "f16->f32";
};
struct WmmaBF16 : WmmaPrecisionBase<__nv_bfloat16, float, 16, 16, 16> {
  static constexpr const char* name = "bf16->f32";
};
struct WmmaF64 : WmmaPrecisionBase<double, double, 8, 8, 4> {
  static constexpr const char* name = "f64";
};
// int8_t is signed char, the element type WMMA's s8 fragments are declared with.
struct WmmaS8 : WmmaPrecisionBase<std::int8_t, std::int32_t, 16, 16, 16> {
  static constexpr const char* name = "s8->s32";
};
// uint8_t is unsigned char, the element type of WMMA's u8 fragments. Both operands are unsigned: WMMA has no mixed
// s8 x u8 fragment pair (mma.sync has, PTX ISA "mma" .s8.u8).
struct WmmaU8 : WmmaPrecisionBase<std::uint8_t, std::int32_t, 16, 16, 16> {
  static constexpr const char* name = "u8->s32";
};

// tf32 is fp32 storage read with a 10-bit significand. The fragment is declared with precision::tf32 and loaded from
// float; the guide requires each element to be converted with __float_to_tf32 before mma_sync (the conversion
// rounds to nearest, ties away from zero, as tc::round_to_tf32 does on the host).
struct WmmaTF32 {
  using Input = float;
  using Fragment = nvcuda::wmma::precision::tf32;
  using Accumulator = float;
  static constexpr int M = 16;
  static constexpr int N = 16;
  static constexpr int K = 8;
  static constexpr const char* name = "tf32->f32";
  template <typename Frag>
  __device__ static void to_fragment_precision(Frag& fragment) {
    for (int i = 0; i < fragment.num_elements; ++i) fragment.x[i] = nvcuda::wmma::__float_to_tf32(fragment.x[i]);
  }
};
// [/doc:precisions]

}  // namespace tc
