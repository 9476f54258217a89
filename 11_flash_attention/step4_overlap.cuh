// Chapter 11, step 4 -- the softmax overlapped inside a warpgroup: each consumer's softmax runs under its own P V.
//
// What it adds over step 3: in step 3 a consumer issues P(j - 1) V(j - 1) and then S(j) in its turn, and waits for
// both before its softmax, so its own P V and its softmax never overlap; only the other consumer's matmuls fill the
// tensor cores meanwhile. Here the turn issues S(j) first and P(j - 1) V(j - 1) after it. The consumer waits for the
// older group alone (wgmma.wait_group 1: S is ready, P V may still run), and runs the part of the softmax that
// touches only S, m and l (softmax_tile) while its P V runs; only then does it wait for P V and turn S(j) into
// P(j)'s fragments. At head_dim 128, O's rescale by the factor the softmax returned (rescale_o) moves into the next
// turn, between S and P V, where it runs under S instead of between P V's end and the next turn; at 64 and 256 it
// follows the wait for P V (kRescaleUnderS says why). S(0) alone and the last P V alone are written out before and
// after the loop, so that every turn of the loop commits the same two groups: ptxas then knows which group each wait
// leaves pending; with both made conditional in one loop, it did not, and serialized the wgmmas (its warning C7514).
// Those two take no turn (FlashAttention-3's order): S(0) has no softmax of the other consumer's to cover, and
// without them the turns pass on from one row block to the next (open_turns), which step 5 needs. The price is in
// registers: P(j - 1)'s kBlockN / 4 stay live through the softmax, which in step 3 ran after P V had read them. The
// rest is step 3's: the producer, the rings, the tile math.
#pragma once

#include "problem.hpp"
#include "reference.cuh"
#include "step2_warp_specialized.cuh"
#include "step3_pingpong.cuh"
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

// [doc:step4_turns]
// Step 4's turns are the loop's alone (S(j) and P(j - 1) V(j - 1), j >= 1): each consumer takes tiles - 1 of them in a
// row block. Consumer 1 arrives on consumer 0's barrier once before its first row block (open_turns), so that
// consumer 0 goes first; consumer 0 waits on it once after its last (close_turns), taking consumer 1's last
// hand-over, so that no arrival is left pending when the block ends. Between the two, the turns run on from row block
// to row block of a persistent block (step 5) with nothing to reset.
__device__ inline void open_turns(int consumer) {
  if (consumer == 1) pass_turn(consumer);
}
__device__ inline void close_turns(int consumer) {
  if (consumer == 0) wait_turn(consumer);
}
// [/doc:step4_turns]

// [doc:step4_rows]
// One consumer's part of a row block (u: step 2's Consumer): its 64 query rows from crow0 against key tiles
// 0 .. tiles - 1, into O (acc, unnormalised), m and l, which the caller zeroes. it0: the slices each
// ring had carried before this row block (0 but in a persistent kernel); q_addr: its Q rows; after_last_s(): called
// once every S of the row block has been computed, before the last P V (the persistent kernel lets the producer load
// the next row block's Q over this one's there). Preconditions: tiles >= 1; with Tile::kTurns, the turns opened
// (open_turns) and not yet closed; without (step 5's three consumers at head_dim 64), each consumer issues as soon as
// it is ready.
template <typename Tile, typename T, typename AfterLastS>
__device__ inline void attend_rows_overlapped(const Consumer<Tile>& u, int it0, int tiles, int crow0, int sq, int sk,
                                              bool causal, float scale_log2, float (&acc)[Tile::kHeadDim / 2],
                                              float (&m)[2], float (&l)[2], AfterLastS after_last_s) {
  constexpr int D = Tile::kHeadDim, BN = Tile::kBlockN;
  // Where O takes the softmax's factor. In the turn, after S(j) is issued and before P(j - 1) V(j - 1)
  // (FlashAttention-3's order), the CUDA cores scale O while S runs rather than between P V's end and the next turn:
  // 2-3% faster at head_dim 128 (11_rescale_order_h200.txt). After P V elsewhere: at 256 the factors, live across the
  // turn beside O's 128 registers, made ptxas spill in step 5 (step 4, which spilled nothing, ran 6% faster); at 64,
  // turns or not, it ran 4-5% slower.
  constexpr bool kRescaleUnderS = Tile::kTurns && D == 128;
  constexpr bool kConditional = Tile::kConditionalRescale;  // step 5's: the max moves only when it must (softmax_tile)
  const int c = u.c, lo = u.lo;
  std::uint32_t pa[BN / 16][4];  // P of the previous tile, waiting for its turn
  float sacc[BN / 2], rescale[2];
  const auto take_turn = [&] { if constexpr (Tile::kTurns) wait_turn(c); };
  const auto hand_over = [&] { if constexpr (Tile::kTurns) pass_turn(c); };
  // S(0) alone, outside the turns: no softmax of this consumer's runs yet for it to cover, and in a persistent kernel
  // a turn here would keep it waiting for the other consumer's epilogue (FlashAttention-3 issues it so too).
  tc::trace_point(kWaitLoads);
  int ks = u.k_slots.wait(it0).stage;
  tc::trace_point(kWaitTensorCores);
  issue_s<BN, Tile::kPanels, T>(sacc, u.q_addr, 64 * 128, u.k_addr + ks * Tile::kTileBytes, BN * 128);
  tc::wgmma_wait_group<0>();
  tc::trace_point(kSoftmax);
  u.k_slots.release(ks);
  if (tile_needs_mask(crow0, 0, BN, sq, sk, causal)) mask<BN>(sacc, crow0 + lo, 0, sq, sk, causal);
  softmax_tile<BN, kConditional>(sacc, m, l, scale_log2, rescale);  // O is still 0: its rescale scales zeros
  p_fragments<BN, T>(sacc, pa);
  // Turns 1 .. tiles - 1: S(j) then P(j - 1) V(j - 1), the same two groups in that order every turn, so that ptxas
  // too can count them: the waits below are then exact, and it need not serialize the wgmmas.
  for (int j = 1; j < tiles; ++j) {
    tc::trace_point(kWaitLoads);
    ks = u.k_slots.wait(it0 + j).stage;
    const int vs = u.v_slots.wait(it0 + j - 1).stage;
    tc::trace_point(kWaitTurn);
    take_turn();
    tc::trace_point(kWaitTensorCores);
    issue_s<BN, Tile::kPanels, T>(sacc, u.q_addr, 64 * 128, u.k_addr + ks * Tile::kTileBytes, BN * 128);
    // O, up to P(j - 2) V(j - 2), to tile j - 1's max
    if constexpr (kRescaleUnderS) rescale_o<D, kConditional>(acc, rescale);
    issue_pv<BN, D, T>(acc, pa, u.v_addr + vs * Tile::kTileBytes);
    hand_over();
    tc::wgmma_wait_group<1>();  // at most the younger group (P V) pending: S(j) is in its registers
    tc::trace_point(kSoftmax);
    u.k_slots.release(ks);
    if (tile_needs_mask(crow0, BN * j, BN, sq, sk, causal)) mask<BN>(sacc, crow0 + lo, BN * j, sq, sk, causal);
    // Under P(j - 1) V(j - 1): touches neither O nor P.
    softmax_tile<BN, kConditional>(sacc, m, l, scale_log2, rescale);
    tc::trace_point(kWaitTensorCores);
    tc::wgmma_wait_group<0>();  // P(j - 1) V(j - 1) is in O, and P(j - 1)'s registers are free
    tc::trace_point(kSoftmax);
    u.v_slots.release(vs);
    // O, up to P(j - 1) V(j - 1), to tile j's max
    if constexpr (!kRescaleUnderS) rescale_o<D, kConditional>(acc, rescale);
    p_fragments<BN, T>(sacc, pa);
  }
  after_last_s();
  // P V of the last tile alone, outside the turns as S(0) is: the other consumer's next S need not wait for it.
  tc::trace_point(kWaitLoads);
  const int vs = u.v_slots.wait(it0 + tiles - 1).stage;
  tc::trace_point(kWaitTensorCores);
  if constexpr (kRescaleUnderS) rescale_o<D, kConditional>(acc, rescale);  // to the last tile's max
  issue_pv<BN, D, T>(acc, pa, u.v_addr + vs * Tile::kTileBytes);
  tc::wgmma_wait_group<0>();
  tc::trace_point(kWaitLoads);  // the epilogue, or the next row block's start
  u.v_slots.release(vs);
}
// [/doc:step4_rows]

// [doc:step4_kernel]
// As step 3's kernel, with each turn's S issued before its P V, and the softmax of S under that P V
// (attend_rows_overlapped). Preconditions: as step 2's (Tile a Step2Tile). Source: FlashAttention-3 (Shah et al.,
// 2024), section 3.2, "Intra-warpgroup overlapping GEMMs and softmax"; PTX ISA, "wgmma.wait_group".
template <typename Tile, typename T>
__global__ void __launch_bounds__(Tile::kThreads, 1)
    step4_attention_kernel(const __grid_constant__ CUtensorMap map_q, const __grid_constant__ CUtensorMap map_k,
                           const __grid_constant__ CUtensorMap map_v, T* __restrict__ o, float* __restrict__ lse,
                           const DeviceShape s, float scale_log2) {
  constexpr int D = Tile::kHeadDim;
  static_assert(Tile::kConsumers == 2, "a turn passes between two consumers");
  extern __shared__ unsigned char smem_raw[];
  const Step2Smem<Tile> sm(smem_raw);
  warp_specialized_row_block<Tile>(sm, map_q, map_k, map_v, s, [&](const RowBlockWork& w, const Consumer<Tile>& u) {
    const int crow0 = w.row0 + 64 * u.c;
    float acc[D / 2] = {};
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
    open_turns(u.c);
    tc::mbarrier_wait_parity(sm.q_full, 0);  // also where no key tile follows: Q lands before the block leaves
    if (w.tiles > 0)
      attend_rows_overlapped<Tile, T>(u, 0, w.tiles, crow0, w.sq, w.sk, s.causal, scale_log2, acc, m, l, [] {});
    write_o_and_lse<T, D>(acc, m, l, o, lse, s, w.b, w.h, crow0, w.token0, w.sq);
    close_turns(u.c);
  });
}
// [/doc:step4_kernel]

}  // namespace attention
