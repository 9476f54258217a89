// Chapter 11 -- the launchers: each step's kernel on a problem, and the reference. Host code.
#pragma once

#include "problem.hpp"
#include "reference.cuh"
#include "step1_one_warpgroup.cuh"
#include "step2_warp_specialized.cuh"
#include "step3_pingpong.cuh"
#include "step4_overlap.cuh"
#include "step5_persistent.cuh"

#include "tc/check.hpp"
#include "tc/device.hpp"  // tc::current_device_sms
#include "tc/tma.hpp"

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace attention {

// The tensors of one problem on the device: Q, K, V and O as problem.hpp lays them out, L fp32, and the varlen
// offsets (nullptr without varlen). O_ref and L_ref are the reference's, fp32.
template <typename T>
struct DeviceTensors {
  const T* q;
  const T* k;
  const T* v;
  T* o;
  float* lse;
  const int* cu_seqlens;
};

inline DeviceShape device_shape(const Shape& s, const int* d_cu_seqlens) {
  return {s.seqlen_q, s.seqlen_k, s.heads, s.kv_heads, s.head_dim, s.causal, d_cu_seqlens, int(total_q(s)), s.batch};
}

// The rank-3 map of a [tokens, heads, head_dim] tensor read in place: boxes of 64 head_dim (one 128-byte swizzled
// row) by `box_tokens` tokens by one head. Errors: std::invalid_argument from tc::make_tma (a base TMA cannot
// address).
template <typename T>
CUtensorMap token_map(const T* base, std::int64_t tokens, int heads, int head_dim, int box_tokens) {
  tc::TmaTensor t;
  t.base = base;
  t.element_bytes = 2;
  t.rank = 3;
  t.dims = {std::uint64_t(head_dim), std::uint64_t(tokens), std::uint64_t(heads)};
  t.strides_bytes = {std::uint64_t(heads) * head_dim * 2, std::uint64_t(head_dim) * 2};
  t.box = {64, box_tokens, 1};
  t.swizzle = tc::Swizzle::B128;
  return tc::make_tma(t,
                      std::is_same_v<T, __half> ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
}

// log2(e) / sqrt(head_dim): the kernels' scores in log2 units, so that the softmax takes exp2 (one MUFU.EX2).
inline float scale_log2(int head_dim) { return float(1.4426950408889634 / std::sqrt(double(head_dim))); }

// A step's kernel on `s`: Q in boxes of 64 rows (one warpgroup's), K and V in tiles of Tile::kBlockN keys; grid
// (ceil(seqlen_q / Tile::kBlockM), heads, batch) of `threads`, or with `persistent` one block an SM (at most one a
// row block). Kernel is the step's kernel for Tile and T.
template <typename Tile, typename T, typename Kernel>
void launch_tiled(Kernel kernel, int threads, const Shape& s, const DeviceTensors<T>& t, cudaStream_t stream,
                  bool persistent = false) {
  const CUtensorMap map_q = token_map(t.q, total_q(s), s.heads, s.head_dim, 64);
  const CUtensorMap map_k = token_map(t.k, total_k(s), s.kv_heads, s.head_dim, Tile::kBlockN);
  const CUtensorMap map_v = token_map(t.v, total_k(s), s.kv_heads, s.head_dim, Tile::kBlockN);
  TC_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Tile::kSmemBytes));
  const int row_blocks = (s.seqlen_q + Tile::kBlockM - 1) / Tile::kBlockM;
  dim3 grid(row_blocks, s.heads, s.batch);
  if (persistent)
    grid = dim3(unsigned(std::min<std::int64_t>(std::int64_t(row_blocks) * s.heads * s.batch,
                                                tc::current_device_sms())));
  kernel<<<grid, threads, Tile::kSmemBytes, stream>>>(map_q, map_k, map_v, t.o, t.lse, device_shape(s, t.cu_seqlens),
                                                      scale_log2(s.head_dim));
  TC_CHECK(cudaGetLastError());
}

// Calls f(std::integral_constant<int, head_dim>{}) for the head_dim of `s`. Errors: std::invalid_argument for one
// the kernels are not built for.
template <typename F>
void with_head_dim(const Shape& s, F f) {
  switch (s.head_dim) {
    case 64: return f(std::integral_constant<int, 64>{});
    case 128: return f(std::integral_constant<int, 128>{});
    case 256: return f(std::integral_constant<int, 256>{});
    default: throw std::invalid_argument("head_dim " + std::to_string(s.head_dim) + " is not supported");
  }
}

// Step 1 (2, 3, 4, 5) on `s`. Preconditions: shape_problem(s) is empty; T __half or __nv_bfloat16; an SM 9.0 GPU.
// Errors: std::invalid_argument (the maps, the head_dim), tc::CudaError (the launch).
template <typename T>
void launch_step1(const Shape& s, const DeviceTensors<T>& t, cudaStream_t stream) {
  with_head_dim(s, [&](auto d) {
    using Tile = Step1Tile<decltype(d)::value>;
    launch_tiled<Tile>(step1_attention_kernel<Tile, T>, 128, s, t, stream);
  });
}
template <typename T>
void launch_step2(const Shape& s, const DeviceTensors<T>& t, cudaStream_t stream) {
  with_head_dim(s, [&](auto d) {
    using Tile = Step2Tile<decltype(d)::value>;
    launch_tiled<Tile>(step2_attention_kernel<Tile, T>, Tile::kThreads, s, t, stream);
  });
}
template <typename T>
void launch_step3(const Shape& s, const DeviceTensors<T>& t, cudaStream_t stream) {
  with_head_dim(s, [&](auto d) {
    using Tile = Step2Tile<decltype(d)::value>;  // step 2's tile and rings
    launch_tiled<Tile>(step3_attention_kernel<Tile, T>, Tile::kThreads, s, t, stream);
  });
}
template <typename T>
void launch_step4(const Shape& s, const DeviceTensors<T>& t, cudaStream_t stream) {
  with_head_dim(s, [&](auto d) {
    using Tile = Step2Tile<decltype(d)::value>;  // step 2's tile and rings
    launch_tiled<Tile>(step4_attention_kernel<Tile, T>, Tile::kThreads, s, t, stream);
  });
}

// Step 5 also zeroes its work counter on `stream` first: two of its launches must not overlap (on two streams), as
// they would share the counter. Its tile is FlashAttention-3's per head_dim, or steps 2-4's on short sequences
// where that computes less (step5_long_tile); at head_dim 64 on short sequences it runs step 1's kernel instead
// (step5_small_block).
template <typename T>
void launch_step5(const Shape& s, const DeviceTensors<T>& t, cudaStream_t stream) {
  if (step5_small_block(s)) return launch_step1(s, t, stream);
  with_head_dim(s, [&](auto d) {
    constexpr int D = decltype(d)::value;
    void* next_item = nullptr;  // the kernel's work counter, zeroed on the stream before each launch
    TC_CHECK(cudaGetSymbolAddress(&next_item, g_step5_next_item));
    TC_CHECK(cudaMemsetAsync(next_item, 0, sizeof(int), stream));
    const auto launch = [&](auto shape) {
      using Tile = Step5Tile<D, decltype(shape)>;
      launch_tiled<Tile>(step5_attention_kernel<Tile, T>, Tile::kThreads, s, t, stream, true);
    };
    if constexpr (D == 128)
      launch(Step5Shape<D>{});  // the two shapes are one: one kernel, compiled once
    else if (step5_long_tile(s))
      launch(Step5Shape<D>{});
    else
      launch(Step5ShortShape<D>{});
  });
}

// The keys of one K and V tile in step `step`'s kernel on s (1 to 5; step 5's tile depends on the lengths too:
// step5_long_tile): a length of one more spans two key tiles, the shortest at which a bug between tiles can show.
// Errors: std::invalid_argument (the head_dim).
inline int key_tile(int step, const Shape& s) {
  int keys = 0;
  with_head_dim(s, [&](auto d) {
    constexpr int D = decltype(d)::value;
    keys = step == 1 || (step == 5 && step5_small_block(s)) ? Step1Tile<D>::kBlockN
           : step != 5 ? Step2Tile<D>::kBlockN
           : step5_long_tile(s) ? Step5Shape<D>::kBlockN : Step5ShortShape<D>::kBlockN;
  });
  return keys;
}

// The reference on `s`, into o_ref and l_ref (fp32). Errors: tc::CudaError.
template <typename T>
void launch_reference(const Shape& s, const DeviceTensors<T>& t, float* o_ref, float* l_ref, cudaStream_t stream) {
  // seqlen_k floats, rounded up to 4: nvcc reads the tail of the kernel's P V loop (1 to 3 scores) with one 16-byte
  // LDS.128, which compute-sanitizer's memcheck reports as out of bounds where the array ends short of it.
  const std::size_t smem = std::size_t(s.seqlen_k + 3) / 4 * 4 * sizeof(float);
  TC_CHECK(cudaFuncSetAttribute(reference_attention_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                int(smem)));
  const dim3 grid(s.seqlen_q, s.heads, s.batch);
  reference_attention_kernel<T><<<grid, 128, smem, stream>>>(t.q, t.k, t.v, o_ref, l_ref,
                                                              device_shape(s, t.cu_seqlens));
  TC_CHECK(cudaGetLastError());
}

}  // namespace attention
