// Chapter 11 -- the tile math: what every step runs on one key tile, for one warpgroup's 64 query rows. S = Q K^T
// with wgmma; the online softmax in S's registers (one row's update, shared with exercise 11.1; the tile's; O's
// rescale); the mask; P's registers as the A operand of P V, and P V with V MN-major; and the epilogue, O and L
// written from the registers. Step 1 (step1_one_warpgroup.cuh) runs them one after the other; steps 2-5 overlap
// them. Device code, but for online_row_update (host and device).
#pragma once

#include "problem.hpp"
#include "reference.cuh"

#include "tc/ex2.cuh"
#include "tc/layouts/wgmma.hpp"
#include "tc/mutation_point.cuh"
#include "tc/wgmma.cuh"
#include "tc/wgmma_slice.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace attention {

// Two values as one 32-bit register of T2, `lo` in bits 0..15 (PTX ISA, "Packed Data Types").
template <typename T>
__device__ inline std::uint32_t pack2(float lo, float hi) {
  if constexpr (std::is_same_v<T, __half>) {
    const __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&v);
  } else {
    const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&v);
  }
}

// The max (or sum) of a row's values over the four lanes that hold it (lanes 4r .. 4r + 3 of a warp:
// tc::wgmma_m64nNk16_d_coord).
__device__ inline float quad_max(float v) {
  v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, 1));
  return fmaxf(v, __shfl_xor_sync(0xffffffffu, v, 2));
}
__device__ inline float quad_sum(float v) {
  v += __shfl_xor_sync(0xffffffffu, v, 1);
  return v + __shfl_xor_sync(0xffffffffu, v, 2);
}

// [doc:online_softmax]
// One tile of the online softmax, in S's registers: s (64 x N, m64nNk16's layout: register i of this thread is row
// `lo` where (i / 2) % 2 == 0, else lo + 8), raw scores q . k, masked ones -inf. The running max m is kept in log2
// units (scores times scale_log2 = log2(e) / sqrt(d)), so that each p_j costs one FFMA and one MUFU.EX2:
// for each of the thread's two rows, m' = max(m, scale_log2 max_j s_j); p_j = 2^(scale_log2 s_j - m');
// l = l 2^(m - m') + sum_j p_j (this thread's columns only: the four lanes of a row add theirs at the end). Returns
// in `rescale` the factor 2^(m - m') that O's row must be multiplied by (rescale_o), left to the caller so that a
// step may do it later, once O is out of a wgmma's hands. A row with no key yet (m' = -inf) uses 0 in place of m',
// so that it makes p_j = 0, not NaN.
// One row's step of it, given the row's running max m (log2 units) and the tile's raw maximum: the new max m', the
// base the tile's exponents subtract (m', or 0 where m' = -inf: a row that has seen no key yet), and the factor
// 2^(m - base) that rescales the row's sum and O. Host and device: the exercise (11.1) and the kernels share it.
struct RowUpdate {
  float m, base, rescale;
};
__host__ __device__ inline RowUpdate online_row_update(float m, float tile_max, float scale_log2) {
  const float m_new = fmaxf(m, tile_max * scale_log2);  // scale_log2 > 0: the max commutes with the scale
  const float base = m_new == -INFINITY ? 0.0f : m_new;
#if defined(__CUDA_ARCH__)
  return {m_new, base, tc::ex2_approx_ftz_f32(m - base)};
#else
  return {m_new, base, std::exp2(m - base)};
#endif
}

// softmax_tile, the tile's step: as above, each row by online_row_update. With kConditional (step 5 at head_dim 128 and
// 256), FlashAttention-4's conditional rescale (Zadouri et al., 2026): the running max moves only in a warp where some
// row's tile max passes it by more than kRescaleSlack (log2 units); elsewhere the old max stays the base, every factor
// is exactly 1, and rescale_o skips O. Exact all the same: O and l are both sums over 2^(score - base) with the one
// base, which the epilogue divides out (O / l) and adds back (L = m + log2 l); a stale base only lets p_j reach
// 2^kRescaleSlack = 256, far inside fp32's range for l and O and no coarser in bf16 or fp16 for P, whose relative
// rounding does not depend on magnitude. The decision is warp-wide (__any_sync) so that the skip is a uniform branch,
// not divergence.
constexpr float kRescaleSlack = 8.0f;
template <int N, bool kConditional = false>
__device__ inline void softmax_tile(float (&s)[N / 2], float (&m)[2], float (&l)[2], float scale_log2,
                                    float (&rescale)[2]) {
  float tile_max[2] = {-INFINITY, -INFINITY};
#pragma unroll
  for (int i = 0; i < N / 2; ++i) tile_max[(i / 2) % 2] = fmaxf(tile_max[(i / 2) % 2], s[i]);
  tile_max[0] = quad_max(tile_max[0]);
  tile_max[1] = quad_max(tile_max[1]);
  float base[2];
  // A row that has seen no key (m = -inf) moves whenever its tile has one (-inf + slack is -inf).
  const bool grows = !kConditional || tile_max[0] * scale_log2 > m[0] + kRescaleSlack ||
                     tile_max[1] * scale_log2 > m[1] + kRescaleSlack;
  if (!kConditional || __any_sync(0xffffffffu, grows)) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const RowUpdate u = online_row_update(m[r], tile_max[r], scale_log2);
      base[r] = u.base;
      // (A mutation point: a test keeps O and l unscaled when the max grows, the rescale skipped.)
      rescale[r] = tc::mutation_point(tc::MutationSite::Rescale, u.rescale);
      m[r] = u.m;
      l[r] *= rescale[r];
    }
  } else {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      base[r] = m[r] == -INFINITY ? 0.0f : m[r];  // as online_row_update's base
      rescale[r] = 1.0f;
    }
  }
#pragma unroll
  for (int i = 0; i < N / 2; ++i) {
    s[i] = tc::ex2_approx_ftz_f32(fmaf(s[i], scale_log2, -base[(i / 2) % 2]));
    l[(i / 2) % 2] += s[i];
  }
}

// O's rows times the factors softmax_tile returned; with kConditional, nothing where every factor of the warp is 1
// (softmax_tile's conditional rescale left the max where it was).
template <int D, bool kConditional = false>
__device__ inline void rescale_o(float (&o)[D / 2], const float (&rescale)[2]) {
  if (kConditional && !__any_sync(0xffffffffu, rescale[0] != 1.0f || rescale[1] != 1.0f)) return;
#pragma unroll
  for (int i = 0; i < D / 2; ++i) o[i] *= rescale[(i / 2) % 2];
}

// The online softmax of one tile as steps 1-3 run it: softmax_tile, then O rescaled at once.
template <int N, int D>
__device__ inline void online_softmax(float (&s)[N / 2], float (&o)[D / 2], float (&m)[2], float (&l)[2],
                                      float scale_log2) {
  float rescale[2];
  softmax_tile<N>(s, m, l, scale_log2, rescale);
  rescale_o<D>(o, rescale);
}
// [/doc:online_softmax]

// [doc:tile_math]
// The pieces of one key tile that every step runs, each for one warpgroup's 64 query rows.
//
// S = Q K^T over head_dim: per 128-byte panel of head_dim, four k16 steps (tc::slice_descriptor); the first
// overwrites S. q_addr and k_addr: the warpgroup's Q rows and the tile's K, panels q_panel and k_panel bytes apart.
// Each operand's descriptor is encoded once and moved to each panel and k16 step by an add
// (tc::advance_wgmma_descriptor), as chapter 08's slice loop does: encoded one by one, all 2 x 4 x Panels of them put
// strings of uniform-datapath shifts, masks and selects between the turn's wgmmas, which issued late (cuobjdump
// -sass). The two agree bit for bit: the panels are 1024-byte multiples, so the swizzle's base offset stays 0.
// Issued and committed as one group, not waited for.
template <int N, int Panels, typename T>
__device__ inline void issue_s(float (&s)[N / 2], std::uint32_t q_addr, std::uint32_t q_panel, std::uint32_t k_addr,
                               std::uint32_t k_panel) {
  const std::uint64_t q_desc = tc::slice_descriptor(q_addr, 0), k_desc = tc::slice_descriptor(k_addr, 0);
  tc::wgmma_fence();  // S's registers were last read by the CUDA cores (the previous tile's softmax)
#pragma unroll
  for (int p = 0; p < Panels; ++p)
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
      tc::wgmma_m64nNk16<N, T>(s, tc::advance_wgmma_descriptor(q_desc, p * q_panel + 32u * kk),
                               tc::advance_wgmma_descriptor(k_desc, p * k_panel + 32u * kk), p > 0 || kk > 0);
  tc::wgmma_commit_group();
}

// S masked to -inf: keys past the sequence (sk), and with `causal` those past each row's diagonal. row_lo: this
// thread's first row of the sequence (its second is 8 further); key0: the tile's first key.
template <int N>
__device__ inline void mask(float (&s)[N / 2], int row_lo, int key0, int sq, int sk, bool causal) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) {
    const int row = row_lo + 8 * ((i / 2) % 2), key = key0 + 8 * (i / 4) + 2 * (lane % 4) + i % 2;
    // (A mutation point: a test moves the causal diagonal one key to the right.)
    const int seen = tc::mutation_point(tc::MutationSite::CausalDiagonal, key);
    const bool visible = key < sk && (!causal || causal_visible(row, seen, sq, sk));
    if (!visible) s[i] = -INFINITY;
  }
}

// P's registers as the A fragments of P V's k16 steps: step t (keys 16t .. 16t + 15) is S's registers 8t .. 8t + 7,
// two to a 32-bit register (tc::wgmma_accumulator_is_next_a).
template <int N, typename T>
__device__ inline void p_fragments(const float (&p)[N / 2], std::uint32_t (&a)[N / 16][4]) {
#pragma unroll
  for (int t = 0; t < N / 16; ++t)
#pragma unroll
    for (int r = 0; r < 4; ++r) a[t][r] = pack2<T>(p[8 * t + 2 * r], p[8 * t + 2 * r + 1]);
}

// O += P V: V's tile MN-major (panels of 64 head_dim, each N rows of 128 bytes, at v_addr), k16 step t 16 rows of
// 128 bytes further into each panel. Issued and committed as one group, not waited for.
template <int N, int D, typename T>
__device__ inline void issue_pv(float (&o)[D / 2], const std::uint32_t (&a)[N / 16][4], std::uint32_t v_addr) {
  const std::uint64_t v_desc =
      tc::encode_wgmma_descriptor(tc::mn_major_tile_descriptor(tc::Swizzle::B128, v_addr, N * 128));
  tc::wgmma_fence();  // P's registers and O's (rescaled) were written outside wgmma
#pragma unroll
  for (int t = 0; t < N / 16; ++t)
    tc::wgmma_m64nNk16_rs<D, T, tc::WgmmaMajor::MN>(o, a[t], tc::advance_wgmma_descriptor(v_desc, 2048u * t), true);
  tc::wgmma_commit_group();
}
// [/doc:tile_math]

// [doc:epilogue]
// The end of a warpgroup's 64 query rows (block rows row0 .. row0 + 63 of sequence b, whose token 0 is `token0`):
// O = acc / l and L = ln 2 (m + log2 l), each row's sum first added over its four lanes; a row that saw no key
// (l = 0) writes O = 0 and L = -inf; rows at or past sq (a tile past the sequence's end) write nothing.
template <typename T, int D>
__device__ inline void write_o_and_lse(const float (&acc)[D / 2], const float (&m)[2], const float (&l)[2], T* o,
                                       float* lse, const DeviceShape& s, int b, int h, int row0, int token0, int sq) {
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32, lo = 16 * warp + lane / 4;
  float inv[2], lse_row[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const float sum = quad_sum(l[r]);
    inv[r] = sum > 0.0f ? 1.0f / sum : 0.0f;
    lse_row[r] = sum > 0.0f ? (m[r] + log2f(sum)) * 0.6931471805599453f : -INFINITY;  // ln 2: L in natural log
  }
#pragma unroll
  for (int i = 0; i < D / 2; i += 2) {  // registers i, i + 1: one row, two neighbouring columns
    const int row = row0 + lo + 8 * ((i / 2) % 2), col = 8 * (i / 4) + 2 * (lane % 4);
    if (row >= sq) continue;
    const float f = inv[(i / 2) % 2];
    *reinterpret_cast<std::uint32_t*>(o + (std::int64_t(token0 + row) * s.heads + h) * D + col) =
        pack2<T>(acc[i] * f, acc[i + 1] * f);
  }
  if (lane % 4 == 0)
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int row = row0 + lo + 8 * r;
      if (row < sq) lse[lse_index(s, b, h, row, token0 + row)] = lse_row[r];
    }
}
// [/doc:epilogue]

}  // namespace attention
