// Chapter 11, step 1 -- one warpgroup, the whole algorithm: FlashAttention's forward on wgmma, with nothing overlapped.
//
// A block of one warpgroup (128 threads) owns 64 query rows of one head. It loads them once (TMA), then walks the
// keys 64 at a time: it loads a tile of K and of V (TMA), computes S = Q K^T with wgmma (Q and K both K-major in
// shared memory: head_dim is contiguous in both), turns S into P by the online softmax in the accumulator's own
// registers (a running max and sum per row; O rescaled when the max grows), and adds P V into O with wgmma again:
// P straight from the registers S was in (the RS form: the fp32 accumulator of m64nNk16, converted to 16 bits in
// register order, is the A fragment of the next wgmma along K: tc::wgmma_accumulator_is_next_a), and V from shared
// memory as an MN-major operand (V is [keys, head_dim] with head_dim contiguous, and P V runs K along the keys).
// Each step waits for the one before: the loads for the wgmmas, the softmax for S, P V for the softmax. Step 2
// overlaps them.
#pragma once

#include "problem.hpp"
#include "reference.cuh"
#include "tile_math.cuh"

#include "tc/mbarrier.cuh"
#include "tc/mutation_point.cuh"
#include "tc/shared_address.cuh"
#include "tc/wgmma.cuh"
#include "tc/wgmma_slice.cuh"

#include <cuda.h>

#include <cstdint>

namespace attention {

// [doc:step1_tile]
// 64 query rows (one warpgroup's wgmma M) by 64 keys a tile; head_dim in panels of 64 16-bit elements, one 128-byte
// swizzled row each (the unit TMA and wgmma share: tc/wgmma_slice.cuh). Registers a thread: O's head_dim / 2 fp32
// (128 at head_dim 256), S's 32, P's 16.
template <int HeadDim>
struct Step1Tile {
  static constexpr int kHeadDim = HeadDim;
  static constexpr int kBlockM = 64, kBlockN = 64;
  static constexpr int kPanels = HeadDim / 64;
  static constexpr int kQBytes = kBlockM * HeadDim * 2, kKBytes = kBlockN * HeadDim * 2, kVBytes = kKBytes;
  static constexpr int kAlign = 1024;  // the 128B swizzle's repeat: every tile and panel starts on it
  static constexpr int kSmemBytes = kAlign + kQBytes + kKBytes + kVBytes + 2 * 8;
  static_assert(HeadDim % 64 == 0 && HeadDim <= 256, "head_dim in whole 128-byte panels; wgmma's N is at most 256");
  static_assert(kBlockN % 16 == 0, "P V runs K (the keys) in steps of 16");
  static_assert(kSmemBytes <= 227 * 1024, "an H100/H200 block may have at most 227 KB of shared memory");
};
// [/doc:step1_tile]

// [doc:step1_kernel]
// Block (x, h, b): query rows 64x .. 64x + 63 of head h of sequence b. O = softmax(Q K^T / sqrt(d)) V and L as
// problem.hpp states. Maps: rank 3 over the packed tokens, [tokens, heads, head_dim] (Q) and [tokens, kv_heads,
// head_dim] (K and V), boxes of 64 head_dim by 64 tokens by one head, 128B swizzle. A tile that runs past its
// sequence reads the next sequence's tokens (or TMA's zeros past the last): their keys are masked, their queries not
// stored. scale_log2 = log2(e) / sqrt(head_dim). Preconditions: grid (ceil(seqlen_q / 64), heads, batch), block 128,
// Tile::kSmemBytes of dynamic shared memory; sm_90a. Errors: none reported. Source: PTX ISA, "wgmma.mma_async"
// (register A; imm-trans-b for V), "cp.async.bulk.tensor", "mbarrier"; FlashAttention-2 (Dao, 2023), algorithm 1.
template <typename Tile, typename T>
__global__ void __launch_bounds__(128, 1)
    step1_attention_kernel(const __grid_constant__ CUtensorMap map_q, const __grid_constant__ CUtensorMap map_k,
                           const __grid_constant__ CUtensorMap map_v, T* __restrict__ o, float* __restrict__ lse,
                           const DeviceShape s, float scale_log2) {
  constexpr int D = Tile::kHeadDim, BN = Tile::kBlockN;
  extern __shared__ unsigned char smem_raw[];
  unsigned char* const q_tile = tc::aligned_smem(smem_raw);
  unsigned char* const k_tile = q_tile + Tile::kQBytes;  // panel p of a tile: p * rows * 128 bytes in
  unsigned char* const v_tile = k_tile + Tile::kKBytes;
  std::uint64_t* const q_full = reinterpret_cast<std::uint64_t*>(v_tile + Tile::kVBytes);
  std::uint64_t* const kv_full = q_full + 1;
  const int h = blockIdx.y, b = blockIdx.z, row0 = blockIdx.x * Tile::kBlockM;
  const int sq = sequence_length(s, b, s.seqlen_q), sk = sequence_length(s, b, s.seqlen_k);
  if (row0 >= sq) return;  // past a shorter sequence of a varlen batch: the whole block, before any barrier
  const int qt0 = first_token(s, b, s.seqlen_q) + row0, kt0 = first_token(s, b, s.seqlen_k);
  // (A mutation point: a test reads another KV head than the group's.)
  const int kvh = tc::mutation_point(tc::MutationSite::KvHead, kv_head_of(h, s.heads, s.kv_heads), s.kv_heads);
  const int tiles = key_tiles(row0, Tile::kBlockM, BN, sq, sk, s.causal);  // causal: later tiles are masked whole

  if (threadIdx.x == 0) {
    tc::mbarrier_init(q_full, 1);
    tc::mbarrier_init(kv_full, 1);
    tc::fence_mbarrier_init_release_cluster();  // the barriers exist before the TMA unit completes bytes on them
    tc::mbarrier_arrive_expect_tx(q_full, Tile::kQBytes);
#pragma unroll
    for (int p = 0; p < Tile::kPanels; ++p)
      tc::cp_async_bulk_tensor_3d_global_to_shared(q_tile + p * Tile::kBlockM * 128, &map_q, 64 * p, qt0, h, q_full);
  }
  __syncthreads();  // no thread waits on a barrier before thread 0 has initialised it

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int lo = 16 * warp + lane / 4;  // this thread's rows of S and O: lo and lo + 8 (tc::wgmma_m64nNk16_d_coord)
  float acc[D / 2] = {};                // O, unnormalised
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
  const std::uint32_t q_addr = tc::shared_address(q_tile), k_addr = tc::shared_address(k_tile),
                      v_addr = tc::shared_address(v_tile);
  // Q lands before anything else; waited for even where no key tile follows (a causal block that sees no key), so
  // that no block leaves with a TMA still writing into its shared memory.
  tc::mbarrier_wait_parity(q_full, 0);
  for (int j = 0; j < tiles; ++j) {
    if (threadIdx.x == 0) {  // K and V of keys 64j .. 64j + 63, onto one barrier
      // (A mutation point: a test loads the middle tile's neighbour in its place, one K tile twice.)
      const int key = kt0 + BN * tc::mutation_point(tc::MutationSite::KSlice, j, tiles);
      tc::mbarrier_arrive_expect_tx(kv_full, Tile::kKBytes + Tile::kVBytes);
#pragma unroll
      for (int p = 0; p < Tile::kPanels; ++p) {
        tc::cp_async_bulk_tensor_3d_global_to_shared(k_tile + p * BN * 128, &map_k, 64 * p, key, kvh, kv_full);
        tc::cp_async_bulk_tensor_3d_global_to_shared(v_tile + p * BN * 128, &map_v, 64 * p, kt0 + BN * j, kvh,
                                                     kv_full);
      }
    }
    tc::mbarrier_wait_parity(kv_full, j % 2);
    float sacc[BN / 2];
    issue_s<BN, Tile::kPanels, T>(sacc, q_addr, Tile::kBlockM * 128, k_addr, BN * 128);
    tc::wgmma_wait_group<0>();
    if (tile_needs_mask(row0, BN * j, BN, sq, sk, s.causal)) mask<BN>(sacc, row0 + lo, BN * j, sq, sk, s.causal);
    online_softmax<BN, D>(sacc, acc, m, l, scale_log2);
    std::uint32_t pa[BN / 16][4];
    p_fragments<BN, T>(sacc, pa);
    issue_pv<BN, D, T>(acc, pa, v_addr);
    tc::wgmma_wait_group<0>();
    __syncthreads();  // every thread's wgmmas have read K and V before thread 0 loads the next tile over them
  }

  write_o_and_lse<T, D>(acc, m, l, o, lse, s, b, h, row0, qt0 - row0, sq);
}
// [/doc:step1_kernel]

}  // namespace attention
