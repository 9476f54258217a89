// Chapter 11, step 5 -- persistent: one block an SM walks the row blocks, the longest of each head first.
//
// What it adds over step 4: steps 1-4 launch a block per row block (64 or 128 query rows of one head of one
// sequence). Each block then pays its start alone: the barriers' set-up, Q's load, the first K tile's load, which
// nothing else covers, and at its end the epilogue, during which the tensor cores wait for the next block. With a
// causal mask the blocks differ in length too (row block x sees x + 1 key tiles of its own width), and whichever
// block the scheduler starts last sets the kernel's end. Here the grid is one block an SM, and each block walks row
// blocks in a fixed order (work_item): the producer loads the next row block's K and V as soon as the rings have
// room, and its Q as soon as both consumers have computed their last S of the current one (Q's own "empty" barrier),
// so those loads run under the current row block's last P V and epilogue. With a causal mask each head's row blocks
// come longest first, so that the short ones fill the end. The rings' counters carry over from row block to row
// block, as chapter 08's persistent GEMM carries its slices. The consumers' work on a row block is step 4's
// (attend_rows_overlapped); the producer's is step 2's.
#pragma once

#include "problem.hpp"
#include "reference.cuh"
#include "step1_one_warpgroup.cuh"
#include "step2_warp_specialized.cuh"
#include "step3_pingpong.cuh"
#include "step4_overlap.cuh"

#include "tc/layouts/mbarrier_ring.hpp"
#include "tc/mbarrier.cuh"
#include "tc/mutation_point.cuh"
#include "tc/shared_address.cuh"
#include "tc/warpgroup.cuh"
#include "tc/ws_pipeline.cuh"

#include <cuda.h>

#include <cstdint>

namespace attention {

// [doc:step5_tile]
// Step 2's tile and rings, plus Q's "empty" barrier (both consumers arrive once a row block's S are all computed;
// then the producer may load the next row block's Q over it), which Step2Smem's layout puts right after V's.
template <int HeadDim>
struct Step5Tile : Step2Tile<HeadDim> {
  static constexpr int kSmemBytes = Step2Tile<HeadDim>::kSmemBytes + 8;
  static_assert(kSmemBytes <= 227 * 1024, "an H100/H200 block may have at most 227 KB of shared memory");
};
// [/doc:step5_tile]

// [doc:work_item]
// Work item w of a persistent grid: row block x of head h of sequence b, w counting row blocks fastest, then heads,
// then sequences, so that the blocks running at once share a head's K and V in L2 (as steps 1-4's grid order does).
// With a causal mask a head's row blocks come last first: the longest (row block x sees x + 1 key tiles of its width)
// start first, and the shortest fill the end. row_blocks: ceil(seqlen_q / the row block's height).
struct WorkItem {
  int x, h, b;
};
__host__ __device__ inline WorkItem work_item(int w, int row_blocks, int heads, bool causal) {
  const int x = w % row_blocks, hb = w / row_blocks;
  return {causal ? row_blocks - 1 - x : x, hb % heads, hb / heads};
}
// [/doc:work_item]

// [doc:step5_kernel]
// Persistent: block i takes work items i, i + gridDim.x, i + 2 gridDim.x, ... (work_item) of row_blocks * heads *
// batch; per item, as step 4's kernel. Preconditions: grid (min(items, SMs)), block Tile::kThreads,
// Tile::kSmemBytes of dynamic shared memory (Tile a Step5Tile); sm_90a. Errors: none reported. Source:
// FlashAttention-3 (Shah et al., 2024), section 3 and its persistent tile scheduler; PTX ISA, "mbarrier".
template <typename Tile, typename T>
__global__ void __launch_bounds__(Tile::kThreads, 1)
    step5_attention_kernel(const __grid_constant__ CUtensorMap map_q, const __grid_constant__ CUtensorMap map_k,
                           const __grid_constant__ CUtensorMap map_v, T* __restrict__ o, float* __restrict__ lse,
                           const DeviceShape s, float scale_log2) {
  constexpr int D = Tile::kHeadDim, BN = Tile::kBlockN, S = Tile::kStages;
  static_assert(Tile::kConsumers == 2, "a turn passes between two consumers");
  extern __shared__ unsigned char smem_raw[];
  const Step2Smem<Tile> sm(smem_raw);
  std::uint64_t* const q_empty = sm.v_empty + S;
  const int row_blocks = (s.seqlen_q + Tile::kBlockM - 1) / Tile::kBlockM;
  const int items = row_blocks * s.heads * s.batch;

  tc::ws_ring_init<S, Tile::kConsumers, 1>(sm.k_full, sm.k_empty);  // as step 2
  tc::ws_ring_init<S, Tile::kConsumers, 1>(sm.v_full, sm.v_empty);
  if (threadIdx.x == 0) {
    tc::mbarrier_init(sm.q_full, 1);
    tc::mbarrier_init(q_empty, Tile::kConsumers);  // each consumer's leader, once a row block
    tc::fence_mbarrier_init_release_cluster();
  }
  tc::ws_cluster_start();

  // Both roles walk the same items and skip the same ones (row blocks past a shorter sequence of a varlen batch), so
  // that they agree on n (the row blocks done: Q's phases) and it (the key tiles done: the rings' slices).
  const int warpgroup = tc::warpgroup_index();
  if (warpgroup == 0) {
    tc::setmaxnreg_dec<Tile::kProducerRegisters>();
    if (threadIdx.x == 0) {
      for (int w = blockIdx.x, n = 0, it = 0; w < items; w += gridDim.x) {
        const WorkItem item = work_item(w, row_blocks, s.heads, s.causal);
        const int row0 = item.x * Tile::kBlockM;
        const int sq = sequence_length(s, item.b, s.seqlen_q), sk = sequence_length(s, item.b, s.seqlen_k);
        if (row0 >= sq) continue;
        const int last_key = s.causal ? min(sk - 1, row0 + Tile::kBlockM - 1 + sk - sq) : sk - 1;
        const int tiles = last_key < 0 ? 0 : last_key / BN + 1;
        const int kvh = tc::mutation_point(tc::MutationSite::KvHead, kv_head_of(item.h, s.heads, s.kv_heads),
                                           s.kv_heads);
        // Q's one stage: free at once for the first row block, then once both consumers released the last one's.
        tc::mbarrier_wait_parity(q_empty, tc::ring_empty_wait_parity(n, 1));
        produce_q_k_v<Tile>(sm, map_q, map_k, map_v, first_token(s, item.b, s.seqlen_q) + row0,
                            first_token(s, item.b, s.seqlen_k), item.h, kvh, tiles, it);
        ++n;
        it += tiles;
      }
    }
  } else {
    tc::setmaxnreg_inc<Tile::kConsumerRegisters>();
    const int c = warpgroup - 1, lo = 16 * ((threadIdx.x / 32) % 4) + (threadIdx.x % 32) / 4;
    const tc::WsConsumerRing<S, 1> k_slots(sm.k_full, sm.k_empty), v_slots(sm.v_full, sm.v_empty);
    const std::uint32_t q_addr = tc::shared_address(sm.q_tile + c * D * 128);
    const std::uint32_t k_addr = tc::shared_address(sm.k_ring), v_addr = tc::shared_address(sm.v_ring);
    const auto release_q = [&] {  // every S of this row block computed: Q's stage may take the next row block's
      if (threadIdx.x % 128 == 0) tc::mbarrier_arrive(q_empty);
    };
    for (int w = blockIdx.x, n = 0, it = 0; w < items; w += gridDim.x) {
      const WorkItem item = work_item(w, row_blocks, s.heads, s.causal);
      const int row0 = item.x * Tile::kBlockM;
      const int sq = sequence_length(s, item.b, s.seqlen_q), sk = sequence_length(s, item.b, s.seqlen_k);
      if (row0 >= sq) continue;
      const int last_key = s.causal ? min(sk - 1, row0 + Tile::kBlockM - 1 + sk - sq) : sk - 1;
      const int tiles = last_key < 0 ? 0 : last_key / BN + 1;
      const int crow0 = row0 + 64 * c;
      float acc[D / 2] = {};
      float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
      // The turns start afresh each row block: consumer 1's last turn of the previous one handed over to no one.
      if (c == 1 && tiles > 0) pass_turn(c);
      tc::mbarrier_wait_parity(sm.q_full, tc::ring_full_parity(n, 1));
      if (tiles > 0)
        attend_rows_overlapped<Tile, T>(k_slots, v_slots, it, tiles, c, crow0, lo, q_addr, k_addr, v_addr, sq, sk,
                                        s.causal, scale_log2, acc, m, l, release_q);
      else
        release_q();
      write_o_and_lse<T, D>(acc, m, l, o, lse, s, item.b, item.h, crow0, first_token(s, item.b, s.seqlen_q), sq);
      ++n;
      it += tiles;
    }
  }
  tc::ws_cluster_finish();
}
// [/doc:step5_kernel]

}  // namespace attention
