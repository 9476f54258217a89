// Chapter 11, step 5 -- persistent: one block an SM walks the row blocks, the longest of each head first, in a tile
// chosen per head_dim.
//
// What it adds over step 4: steps 1-4 launch a block per row block (64 or 128 query rows of one head of one
// sequence). Each block then pays its start alone: the barriers' set-up, Q's load, the first K tile's load, which
// nothing else covers, and at its end the epilogue, during which the tensor cores wait for the next block. With a
// causal mask the blocks differ in length too (row block x sees x + 1 key tiles of its own width), and whichever
// long block the hardware happens to start last sets the kernel's end. Here the grid is one block an SM, and each
// block runs row block after row block: its producer loads the next one's K and V as soon as the rings have room,
// and its Q into a stage of Q's own ring (Step5Tile::kQStages: two at head_dim 128, so that Q's load runs under the
// current row block's last key tiles; one elsewhere, loaded once both consumers have computed their last S, under
// the last P V and the epilogue). Which row block comes next is decided at run time: the producer takes the next
// number from a counter in global memory (atomicAdd) and hands it to the consumers beside Q. The numbers go through
// each head's row blocks longest first (work_item), so a block that finishes early takes the next longest, and the
// shortest fill the end (greedy list scheduling, longest first). The rings' counters carry over from row block to
// row block, as chapter 08's persistent GEMM carries its slices, and so do the consumers' turns (open_turns), so
// that a consumer starting its next row block never waits for the other's epilogue. The consumers' work on a row
// block is step 4's (attend_rows_overlapped); the producer's is step 2's. And the tile is chosen per head_dim
// (Step5Shape): three consumers without turns at head_dim 64, 80-key tiles at 256; at head_dim 64 on short
// sequences, step 1's one-warpgroup blocks (step5_small_block). Last, at head_dim 128 and 256 the consumers rescale O
// only where a row's maximum has grown by more than 2^8 (FlashAttention-4's conditional rescale: softmax_tile,
// Step5Tile::kConditionalRescale).
#pragma once

#include "problem.hpp"
#include "reference.cuh"
#include "step2_warp_specialized.cuh"
#include "step3_pingpong.cuh"
#include "step4_overlap.cuh"
#include "tile_math.cuh"

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
// The tile per head_dim, FlashAttention-3's. A key tile's softmax costs the CUDA cores the same at every head_dim,
// its two matmuls cost the tensor cores head_dim / 64 times as much as at 64:
// - head_dim 64: the matmuls are too short to hide the other consumer's softmax, so the turns would idle the tensor
//   cores. Three consumers (192 rows) issue without turns; 3 x 160 registers hold O 32, S 64 and P 32 a thread, and
//   shared memory Q (24 KB) and two stages of K and V (64 KB).
// - head_dim 128: step 2's, two consumers taking turns, 128 keys.
// - head_dim 256: 80 keys, not 64, so that each turn's two matmuls run 25% longer (S's N and P V's K are the key
//   tile) against the same fixed cost of a turn (its barriers and waits); the registers still hold O 128, S 40 and
//   P 20 of 240, and shared memory Q (64 KB) and two stages of K and V (160 KB), 224 KB of the 227 a block may have.
template <int HeadDim>
struct Step5Shape {
  static constexpr int kBlockN = HeadDim == 256 ? 80 : 128, kConsumers = HeadDim == 64 ? 3 : 2;
};
// Steps 2-4's tile, which step 5 keeps where FlashAttention-3's computes more than it saves (step5_long_tile).
template <int HeadDim>
struct Step5ShortShape {
  static constexpr int kBlockN = Step2Tile<HeadDim>::kBlockN, kConsumers = 2;
};
// Whether step 5 runs Step5Shape's tile on s (else Step5ShortShape's). Both shapes compute S in whole tiles, so the
// larger tile pays in S that no row sees wherever a sequence ends inside it:
// - head_dim 64 with a causal mask: a block of 192 rows ends inside a 128-key tile two times in three, and computes S
//   for keys that its rows then mask. Over a head, 192-row blocks compute 15% more of S than 128-row ones at 512
//   tokens, 11% more at 1k and 5% at 2k, while the third consumer gains some 3% at 2k (11_levers_h200.txt): from 2k
//   query rows on the suite measured it ahead (11_flash_attention_h200.txt at 6a435ad), below it behind. Step 1's
//   small blocks now take such problems up to 2k keys (step5_small_block); past them this keeps a chunk of queries
//   against a longer context, where 192-row blocks ran 16% behind at 1000 queries x 3000 keys and 2% ahead at 512
//   x 4096 (11_softmax_schedule_ab_h200.txt).
// - head_dim 256: 80-key tiles round 512 keys up to 560 (9% more S than 64-key tiles), 1k to 1,040 (2%), against the
//   5-7% a longer turn gains: from 1k keys on.
// Host; s valid (check_shape).
inline bool step5_long_tile(const Shape& s) {
  if (s.head_dim == 64) return !s.causal || s.seqlen_q >= 2048;
  if (s.head_dim == 256) return s.seqlen_k >= 1024;
  return true;  // head_dim 128: the two shapes are one
}
// Whether step 5 runs step 1's kernel on s: one warpgroup and 64 query rows a block, several blocks an SM, and
// 64-key tiles. At head_dim 64 a key tile's two matmuls are too short for one consumer's to cover the other's
// softmax, and several small blocks an SM overlap them without turns; with a causal mask the 64-key tile also computes
// less S that the mask hides. In --bench at c2d83c6 (11_flash_attention_h200.txt's record then, in git's history)
// step 1 ran ahead of step 5 at head_dim 64 up to 1k tokens without a mask (+4% to +8%) and up to 2k with one (+3% to
// +23%), and behind it from 2k (4k) on; at head_dim 128 and 256 behind it everywhere. Handing it those problems made
// step 5 4.3% faster at 16 x 1024 and 22.9% at 32 x 512 causal (11_conditional_rescale_ab_h200.txt). Host; s valid
// (check_shape).
inline bool step5_small_block(const Shape& s) {
  return s.head_dim == 64 && s.seqlen_k <= (s.causal ? 2048 : 1024);
}
// Step 2's tile and rings in that shape, with Q in a ring of its own, kQStages deep: its stage i holds the block's
// row block n when i = n mod kQStages (tc::ring_slot). Two at head_dim 128: the producer loads the next row block's
// Q while the consumers still read this one's, and its latency hides under their last key tiles (0.6-1.5% at 2k,
// 11_boundary_ab_h200.txt). One elsewhere: at 256 Q (64 KB) and two stages of K and V (160 KB) leave no room for a
// second; at 64 the second ran 1.5-4% slower. Each stage has a "full" barrier (stage 0's is Step2Smem's q_full), an
// "empty" one (every consumer thread arrives once a row block's S are all computed; then the producer may load
// another Q over it), and the number of the row block it holds (q_item: work_item's w; items or more: none left).
template <int HeadDim, typename Config = Step5Shape<HeadDim>,
          typename Base = Step2Tile<HeadDim, Config::kBlockN, Config::kConsumers>>
struct Step5Tile : Base {
  static constexpr int kQStages = HeadDim == 128 ? 2 : 1;
  // FlashAttention-4's conditional rescale (softmax_tile): O's rescale skipped where no row's max grew by 2^8, which
  // after the first few tiles is nearly every tile. 3-6% faster at head_dim 128 and 256, 1-4% slower at 64, whose
  // rescale follows the wait for P V and costs less than the vote (11_conditional_rescale_ab_h200.txt).
  static constexpr bool kConditionalRescale = HeadDim >= 128;
  // After Step2Smem's barriers: the "empty" barriers, the "full" ones of stages 1 on, the items (8 bytes each); then
  // the Q tiles of stages 1 on, each aligned to the swizzle's repeat.
  static constexpr int kQExtras = 3 * kQStages - 1;
  static constexpr int kSmemBytes = Base::kSmemBytes + 8 * kQExtras + Base::kAlign + (kQStages - 1) * Base::kQBytes;
  static_assert(Base::kQBytes % Base::kAlign == 0, "each Q stage starts on the swizzle's repeat");
  static_assert(kSmemBytes <= 227 * 1024, "an H100/H200 block may have at most 227 KB of shared memory");
};
// Stage i of Q's ring in the block's shared memory (Step5Tile's layout).
struct Step5QStage {
  unsigned char* tile;
  std::uint64_t *full, *empty;
  volatile int* item;
};
template <typename Tile>
__device__ inline Step5QStage step5_q_stage(const Step2Smem<Tile>& sm, int i) {
  constexpr int Q = Tile::kQStages;
  std::uint64_t* const extras = sm.v_empty + Tile::kStages;
  unsigned char* const tiles = tc::aligned_smem(reinterpret_cast<unsigned char*>(extras + Tile::kQExtras));
  return {i == 0 ? sm.q_tile : tiles + (i - 1) * Tile::kQBytes, i == 0 ? sm.q_full : extras + Q + i - 1, extras + i,
          reinterpret_cast<volatile int*>(extras + 2 * Q - 1 + i)};
}

namespace {
// The next work item for a block that has finished taking its own: items gridDim.x, gridDim.x + 1, ... in the
// order blocks ask. Zeroed before each launch (launch_step5). One per translation unit (internal linkage).
__device__ int g_step5_next_item;
}  // namespace
// [/doc:step5_tile]

// [doc:work_item]
// Work item w: row block x of head h of sequence b, w counting row blocks fastest, then heads, then sequences, so
// that the blocks running at once share a head's K and V in L2 (as steps 1-4's grid order does). With a causal mask
// a head's row blocks come last first: the longest (row block x sees x + 1 key tiles of its width) are taken first,
// and the shortest fill the end. row_blocks: ceil(seqlen_q / the row block's height).
struct WorkItem {
  int x, h, b;
};
__host__ __device__ inline WorkItem work_item(int w, int row_blocks, int heads, bool causal) {
  const int x = w % row_blocks, hb = w / row_blocks;
  return {causal ? row_blocks - 1 - x : x, hb % heads, hb / heads};
}

// [/doc:work_item]

// [doc:step5_kernel]
// Persistent: block i takes work item i first, then whichever g_step5_next_item gives it (work_item), of
// row_blocks * heads * batch; per item, as step 4's kernel. Preconditions: g_step5_next_item zeroed; grid
// (min(items, SMs)), block Tile::kThreads, Tile::kSmemBytes of dynamic shared memory (Tile a Step5Tile); sm_90a.
// Errors: none reported. Source: FlashAttention-3 (Shah et al., 2024), section 3, and its persistent tile
// scheduler; PTX ISA, "mbarrier" (arrive's release and try_wait's acquire order the item's number with Q).
template <typename Tile, typename T>
__global__ void __launch_bounds__(Tile::kThreads, 1)
    step5_attention_kernel(const __grid_constant__ CUtensorMap map_q, const __grid_constant__ CUtensorMap map_k,
                           const __grid_constant__ CUtensorMap map_v, T* __restrict__ o, float* __restrict__ lse,
                           const DeviceShape s, float scale_log2) {
  constexpr int D = Tile::kHeadDim, S = Tile::kStages;
  static_assert(Tile::kConsumers == 2 || !Tile::kTurns, "a turn passes between two consumers");
  extern __shared__ unsigned char smem_raw[];
  const Step2Smem<Tile> sm(smem_raw);
  constexpr int QS = Tile::kQStages;
  const int row_blocks = (s.seqlen_q + Tile::kBlockM - 1) / Tile::kBlockM;
  const int items = row_blocks * s.heads * s.batch;

  tc::ws_ring_init<S, Tile::kConsumers, 1>(sm.k_full, sm.k_empty);  // as step 2
  tc::ws_ring_init<S, Tile::kConsumers, 1>(sm.v_full, sm.v_empty);
  if (threadIdx.x == 0) {
    for (int i = 0; i < QS; ++i) {
      const Step5QStage q = step5_q_stage(sm, i);
      tc::mbarrier_init(q.full, 1);
      // Every consumer thread, once a row block: each has read the item, and its own arrival (a release) is what
      // orders that read before the producer's next write; a leader's arrival alone would not (racecheck: a WAR
      // hazard).
      tc::mbarrier_init(q.empty, Tile::kConsumers * 128);
    }
    tc::fence_mbarrier_init_release_cluster();
  }
  tc::ws_cluster_start();

  // n counts the row blocks this block has run (Q's phases), `it` their key tiles (the rings' slices); the producer
  // and the consumers count the same ones, since the consumers run exactly the items the producer hands them.
  const auto work = [&](int w) {  // work item w's row block
    const WorkItem item = work_item(w, row_blocks, s.heads, s.causal);
    return row_block_work<Tile>(s, item.x, item.h, item.b);
  };
  const int warpgroup = tc::warpgroup_index();
  if (warpgroup == 0) {
    tc::setmaxnreg_dec<Tile::kProducerRegisters>();
    if (threadIdx.x == 0) {
      for (int n = 0, it = 0, w = blockIdx.x;; ++n) {
        // Row blocks past a shorter sequence's end (varlen) have no work: the producer passes over them.
        while (w < items && work(w).empty())
          w = atomicAdd(&g_step5_next_item, 1) + gridDim.x;
        // Q's stage: free at once for the first kQStages row blocks, then once both consumers released the one it
        // held (after which they no longer read its item either).
        const tc::RingSlot slot = tc::ring_slot(n, QS);
        const Step5QStage q = step5_q_stage(sm, slot.stage);
        tc::mbarrier_wait_parity(q.empty, tc::ring_empty_wait_parity(n, QS));
        *q.item = w;
        if (w >= items) {  // none left: Q's barrier completes with no bytes, and the consumers read "none"
          tc::mbarrier_arrive(q.full);
          break;
        }
        const RowBlockWork r = work(w);
        const int kvh = tc::mutation_point(tc::MutationSite::KvHead, kv_head_of(r.h, s.heads, s.kv_heads), s.kv_heads);
        // Its first act, arriving on Q's "full" barrier (a release), publishes the item with Q.
        produce_q<Tile>(q.tile, q.full, map_q, r.token0 + r.row0, r.h);
        produce_k_v<Tile>(sm, map_k, map_v, r.kt0, kvh, r.tiles, it);
        it += r.tiles;
        w = atomicAdd(&g_step5_next_item, 1) + gridDim.x;  // the next: taken now that this one is all issued
      }
    }
  } else {
    tc::setmaxnreg_inc<Tile::kConsumerRegisters>();
    const Consumer<Tile> u0(sm, warpgroup);
    if constexpr (Tile::kTurns) open_turns(u0.c);  // once: the turns run on across row blocks
    for (int n = 0, it = 0;; ++n) {
      const tc::RingSlot slot = tc::ring_slot(n, QS);
      const Step5QStage q = step5_q_stage(sm, slot.stage);
      tc::mbarrier_wait_parity(q.full, slot.parity);  // an acquire: the item is this row block's
      const int w = *q.item;
      // Every S of this row block computed (the wgmmas have read Q) and the item read: Q's stage may take another.
      const auto release_q = [&] { tc::mbarrier_arrive(q.empty); };
      if (w >= items) break;
      Consumer<Tile> u = u0;  // with this row block's Q
      u.q_addr = tc::shared_address(q.tile + u.c * D * 128);
      const RowBlockWork r = work(w);
      const int crow0 = r.row0 + 64 * u.c;
      float acc[D / 2] = {};
      float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
      if (r.tiles > 0)
        attend_rows_overlapped<Tile, T>(u, it, r.tiles, crow0, r.sq, r.sk, s.causal, scale_log2, acc, m, l, release_q);
      else
        release_q();
      write_o_and_lse<T, D>(acc, m, l, o, lse, s, r.b, r.h, crow0, r.token0, r.sq);
      it += r.tiles;
    }
    if constexpr (Tile::kTurns) close_turns(u0.c);
  }
  tc::ws_cluster_finish();
}
// [/doc:step5_kernel]

}  // namespace attention
