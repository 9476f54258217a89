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
  constexpr int D = Tile::kHeadDim, BN = Tile::kBlockN;
  static_assert(Tile::kConsumers == 2, "a turn passes between two consumers");
  extern __shared__ unsigned char smem_raw[];
  const Step2Smem<Tile> sm(smem_raw);
  warp_specialized_row_block<Tile>(sm, map_q, map_k, map_v, s, [&](const RowBlockWork& w, const Consumer<Tile>& u) {
    const int c = u.c, crow0 = w.row0 + 64 * c, tiles = w.tiles;
    float acc[D / 2] = {};
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
    std::uint32_t pa[BN / 16][4];  // P of the previous tile, waiting for its turn
    if (c == 1 && tiles > 0) pass_turn(c);  // consumer 0 goes first
    tc::mbarrier_wait_parity(sm.q_full, 0);
    for (int j = 0; tiles > 0 && j <= tiles; ++j) {  // turn j: P V of tile j - 1, S of tile j
      tc::trace_point(kWaitLoads);
      const int ks = j < tiles ? u.k_slots.wait(j).stage : 0;
      const int vs = j > 0 ? u.v_slots.wait(j - 1).stage : 0;
      float sacc[BN / 2];
      tc::trace_point(kWaitTurn);
      wait_turn(c);
      tc::trace_point(kWaitTensorCores);
      if (j > 0) issue_pv<BN, D, T>(acc, pa, u.v_addr + vs * Tile::kTileBytes);  // P(j - 1) V(j - 1)
      if (j < tiles)
        issue_s<BN, Tile::kPanels, T>(sacc, u.q_addr, 64 * 128, u.k_addr + ks * Tile::kTileBytes, BN * 128);
      if (c == 0 || j < tiles) pass_turn(c);  // consumer 1's last turn hands over to no one
      tc::wgmma_wait_group<0>();  // both groups: O has P(j - 1) V(j - 1), S is this tile's
      if (j > 0) u.v_slots.release(vs);
      if (j == tiles) break;
      tc::trace_point(kSoftmax);
      u.k_slots.release(ks);
      if (tile_needs_mask(crow0, BN * j, BN, w.sq, w.sk, s.causal))
        mask<BN>(sacc, crow0 + u.lo, BN * j, w.sq, w.sk, s.causal);
      online_softmax<BN, D>(sacc, acc, m, l, scale_log2);  // rescales O, P(j - 1) V(j - 1) included
      p_fragments<BN, T>(sacc, pa);
    }
    tc::trace_point(kWaitLoads);  // the epilogue
    write_o_and_lse<T, D>(acc, m, l, o, lse, s, w.b, w.h, crow0, w.token0, w.sq);
  });
}
// [/doc:step3_kernel]

}  // namespace attention
