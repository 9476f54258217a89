// Chapter 11, step 3 -- ping-pong: the two consumers take turns at the tensor cores, so that one's softmax runs while
// the other's matmuls do.
//
// What it adds over step 2: in step 2 each consumer runs S = Q K^T, its softmax, then P V, and the two consumers
// meet the tensor cores whenever they happen to; both may be in their softmax at once, the tensor cores idle. Here
// two named barriers hand a turn back and forth. In its turn a consumer issues the matmuls that need the tensor
// cores, P V of the previous key tile and S of this one, one after the other, and hands the turn over; then it waits
// for them and runs its softmax, while the other consumer's matmuls run. P V of tile j thus moves to the next
// turn: O is added P(j - 1) V(j - 1) before the softmax of tile j rescales it, which is the order the online softmax
// needs (O and P(j - 1) are both relative to the max after tile j - 1), and after the last tile one more turn issues
// the last P V. The producer, the rings and the tile math are step 2's.
#pragma once

#include "problem.hpp"
#include "reference.cuh"
#include "step2_warp_specialized.cuh"
#include "tile_math.cuh"

#include "tc/mbarrier.cuh"
#include "tc/mutation_point.cuh"
#include "tc/shared_address.cuh"
#include "tc/trace_point.cuh"
#include "tc/warpgroup.cuh"
#include "tc/wgmma.cuh"
#include "tc/ws_pipeline.cuh"

#include <cuda.h>

#include <cstdint>

namespace attention {

// [doc:turns]
// The turn: named barrier kTurn + c is "consumer c may issue". A consumer waits for its own (bar.sync, with the 128
// arrivals of the other consumer's bar.arrive: 256 in all), issues, and arrives on the other's. Consumer 1 arrives on
// consumer 0's once first, so that consumer 0 goes first; after its last turn it arrives no more, so that no arrival
// is left pending when the block ends (each consumer takes tiles + 1 turns; consumer 0 arrives after each of its
// own). Barrier 0 is __syncthreads'.
inline constexpr int kTurn = 1;
__device__ inline void wait_turn(int consumer) { tc::named_barrier_sync(kTurn + consumer, 256); }
__device__ inline void pass_turn(int consumer) { tc::named_barrier_arrive(kTurn + (1 - consumer), 256); }
// [/doc:turns]

// [doc:step3_kernel]
// As step 2's kernel, with the consumers' matmuls in turns. Preconditions: as step 2's (Tile a Step2Tile).
// Source: FlashAttention-3 (Shah et al., 2024), section 3.1, "Pingpong scheduling"; PTX ISA, "bar.sync / bar.arrive".
template <typename Tile, typename T>
__global__ void __launch_bounds__(Tile::kThreads, 1)
    step3_attention_kernel(const __grid_constant__ CUtensorMap map_q, const __grid_constant__ CUtensorMap map_k,
                           const __grid_constant__ CUtensorMap map_v, T* __restrict__ o, float* __restrict__ lse,
                           const DeviceShape s, float scale_log2) {
  constexpr int D = Tile::kHeadDim, BN = Tile::kBlockN, S = Tile::kStages;
  static_assert(Tile::kConsumers == 2, "a turn passes between two consumers");
  extern __shared__ unsigned char smem_raw[];
  const Step2Smem<Tile> sm(smem_raw);
  const int h = blockIdx.y, b = blockIdx.z, row0 = blockIdx.x * Tile::kBlockM;
  const int sq = sequence_length(s, b, s.seqlen_q), sk = sequence_length(s, b, s.seqlen_k);
  if (row0 >= sq) return;  // past a shorter sequence of a varlen batch: the whole block, before any barrier
  const int token0 = first_token(s, b, s.seqlen_q), kt0 = first_token(s, b, s.seqlen_k);
  const int tiles = key_tiles(row0, Tile::kBlockM, BN, sq, sk, s.causal);

  tc::ws_ring_init<S, Tile::kConsumers, 1>(sm.k_full, sm.k_empty);  // as step 2
  tc::ws_ring_init<S, Tile::kConsumers, 1>(sm.v_full, sm.v_empty);
  if (threadIdx.x == 0) {
    tc::mbarrier_init(sm.q_full, 1);
    tc::fence_mbarrier_init_release_cluster();
  }
  tc::ws_cluster_start();

  const int warpgroup = tc::warpgroup_index();
  if (warpgroup == 0) {
    tc::setmaxnreg_dec<Tile::kProducerRegisters>();
    if (threadIdx.x == 0) {
      const int kvh = tc::mutation_point(tc::MutationSite::KvHead, kv_head_of(h, s.heads, s.kv_heads), s.kv_heads);
      produce_q_k_v<Tile>(sm, map_q, map_k, map_v, token0 + row0, kt0, h, kvh, tiles);
    }
  } else {
    tc::setmaxnreg_inc<Tile::kConsumerRegisters>();
    const int c = warpgroup - 1, lo = 16 * ((threadIdx.x / 32) % 4) + (threadIdx.x % 32) / 4;
    const int crow0 = row0 + 64 * c;
    const tc::WsConsumerRing<S, 1> k_slots(sm.k_full, sm.k_empty), v_slots(sm.v_full, sm.v_empty);
    const std::uint32_t q_addr = tc::shared_address(sm.q_tile + c * D * 128);
    const std::uint32_t k_addr = tc::shared_address(sm.k_ring), v_addr = tc::shared_address(sm.v_ring);
    float acc[D / 2] = {};
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
    std::uint32_t pa[BN / 16][4];  // P of the previous tile, waiting for its turn
    if (c == 1 && tiles > 0) pass_turn(c);  // consumer 0 goes first
    tc::mbarrier_wait_parity(sm.q_full, 0);
    for (int j = 0; tiles > 0 && j <= tiles; ++j) {  // turn j: P V of tile j - 1, S of tile j
      tc::trace_point(kWaitLoads);
      const int ks = j < tiles ? k_slots.wait(j).stage : 0;
      const int vs = j > 0 ? v_slots.wait(j - 1).stage : 0;
      float sacc[BN / 2];
      tc::trace_point(kWaitTurn);
      wait_turn(c);
      tc::trace_point(kWaitTensorCores);
      if (j > 0) issue_pv<BN, D, T>(acc, pa, v_addr + vs * Tile::kTileBytes);  // P(j - 1) V(j - 1)
      if (j < tiles)
        issue_s<BN, Tile::kPanels, T>(sacc, q_addr, 64 * 128, k_addr + ks * Tile::kTileBytes, BN * 128);
      if (c == 0 || j < tiles) pass_turn(c);  // consumer 1's last turn hands over to no one
      tc::wgmma_wait_group<0>();  // both groups: O has P(j - 1) V(j - 1), S is this tile's
      if (j > 0) v_slots.release(vs);
      if (j == tiles) break;
      tc::trace_point(kSoftmax);
      k_slots.release(ks);
      if (tile_needs_mask(crow0, BN * j, BN, sq, sk, s.causal)) mask<BN>(sacc, crow0 + lo, BN * j, sq, sk, s.causal);
      online_softmax<BN, D>(sacc, acc, m, l, scale_log2);  // rescales O, P(j - 1) V(j - 1) included
      p_fragments<BN, T>(sacc, pa);
    }
    tc::trace_point(kWaitLoads);  // the epilogue
    write_o_and_lse<T, D>(acc, m, l, o, lse, s, b, h, crow0, token0, sq);
  }
  tc::ws_cluster_finish();
}
// [/doc:step3_kernel]

}  // namespace attention
