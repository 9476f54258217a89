// Chapter 11, step 2 -- a TMA ring and warp specialization: a producer warpgroup loads, two consumer warpgroups
// compute.
//
// What it adds over step 1: in step 1 the warpgroup that computes also waits for every load, and a key tile's loads
// start only once the previous tile's P V has read its buffers. Here a producer warpgroup (one thread of it issues
// the TMA loads; setmaxnreg gives its registers to the others) fills rings of kStages stages ahead of the
// consumers: one ring for K, one for V, each stage with its own "full" and "empty" barriers, so that a consumer
// starts S = Q K^T as soon as K has landed, while V may still be on its way, and hands K's stage back as soon as
// S is computed. Q is loaded once, onto a barrier of its own. Two consumer warpgroups own 64 query rows each (the
// block: 128 rows), so that each K and V tile loaded serves 128 rows, and each consumer has 240 registers for its
// S, P and O. The rings are common's (tc/ws_pipeline.cuh: tc::ws_ring_init, tc::WsConsumerRing), which chapter 08
// built for GEMMs, here two of them in one block.
#pragma once

#include "problem.hpp"
#include "reference.cuh"
#include "tile_math.cuh"

#include "tc/layouts/mbarrier_ring.hpp"
#include "tc/mbarrier.cuh"
#include "tc/mutation_point.cuh"
#include "tc/shared_address.cuh"
#include "tc/trace_point.cuh"
#include "tc/warpgroup.cuh"
#include "tc/wgmma.cuh"
#include "tc/wgmma_slice.cuh"
#include "tc/ws_pipeline.cuh"

#include <cuda.h>

#include <cstdint>

namespace attention {

// [doc:step2_tile]
// 128 query rows a block (two consumers of 64), key tiles of 128 (64 at head_dim 256, where O alone takes 128
// registers a thread), kStages stages a ring. Shared memory: Q (128 x head_dim) and kStages tiles each of K and V
// (kBlockN x head_dim), 160 KB at head_dim 128, 192 KB at 256. Registers a consumer thread: O head_dim / 2, S kBlockN
// / 2, P kBlockN / 4 (160 at head_dim 128, of the 240 that setmaxnreg gives it). Step 5 picks other key tiles and
// consumer counts per head_dim (Step5Tile): BlockN and Consumers say them; kTurns whether the consumers take turns.
template <int HeadDim, int BlockN = (HeadDim <= 128 ? 128 : 64), int Consumers = 2>
struct Step2Tile {
  static constexpr int kHeadDim = HeadDim;
  static constexpr int kConsumers = Consumers, kThreads = 128 * (1 + kConsumers);
  static constexpr bool kTurns = Consumers == 2;  // ping-pong (step 3) passes the turn between exactly two
  static constexpr int kBlockM = 64 * kConsumers, kBlockN = BlockN, kStages = 2;
  static constexpr bool kConditionalRescale = false;  // O rescaled at every tile (step 5's may skip: softmax_tile)
  static constexpr int kPanels = HeadDim / 64;
  static constexpr int kQBytes = kBlockM * HeadDim * 2, kTileBytes = kBlockN * HeadDim * 2;
  // setmaxnreg's counts are multiples of 8 from 24 to 256, and the block's warpgroups share the SM's 65,536:
  // (24 + 2 x 240) x 128 = (24 + 3 x 160) x 128 = 64,512.
  static constexpr int kProducerRegisters = 24, kConsumerRegisters = Consumers == 2 ? 240 : 160;
  static constexpr int kAlign = 1024;  // the 128B swizzle's repeat: every tile and panel starts on it
  static constexpr int kBarriers = 1 + 4 * kStages;  // Q's; K's and V's full and empty
  static constexpr int kSmemBytes = kAlign + kQBytes + 2 * kStages * kTileBytes + 8 * kBarriers;
  static_assert(HeadDim % 64 == 0 && HeadDim <= 256, "head_dim in whole 128-byte panels; wgmma's N is at most 256");
  static_assert(BlockN % 16 == 0 && BlockN <= 256, "P V's K is the key tile, in wgmma's steps of 16; S's N is it");
  static_assert(Consumers == 2 || Consumers == 3, "two consumers taking turns, or three without");
  // O, S, P, and 32 more for m, l, the addresses and the loop's state: a floor, which ptxas's report checks (the
  // chapter's ptxas test fails on any spill).
  static_assert(HeadDim / 2 + kBlockN / 2 + kBlockN / 4 + 32 <= kConsumerRegisters, "O, S and P, and the rest");
  static_assert((kProducerRegisters + kConsumers * kConsumerRegisters) * 128 <= 65536, "the SM's 65,536 registers");
  static_assert(kSmemBytes <= 227 * 1024, "an H100/H200 block may have at most 227 KB of shared memory");
};
// [/doc:step2_tile]

// The phases a timeline of the consumers shows (tools/timeline.cu): tc::trace_point(phase) marks where one begins,
// and compiles to nothing outside that tool.
enum TracePhase : int {
  kWaitLoads,        // for a ring's stage
  kWaitTurn,         // for the other consumer to hand over the tensor cores (steps 3-5)
  kWaitTensorCores,  // issued, waiting for its wgmmas
  kSoftmax,          // the CUDA cores: mask, softmax, rescale, P's fragments
};

// [doc:step2_smem]
// The block's shared memory: Q (consumer c's 64 rows at c * head_dim * 128 bytes, in panels of 64 rows of 128 bytes),
// then the K ring and the V ring (stage i kTileBytes on, panel p p * kBlockN * 128 bytes into it), then the barriers:
// Q's, and each ring's "full" and "empty" ones.
template <typename Tile>
struct Step2Smem {
  unsigned char* q_tile;
  unsigned char* k_ring;
  unsigned char* v_ring;
  std::uint64_t *q_full, *k_full, *k_empty, *v_full, *v_empty;
  __device__ explicit Step2Smem(unsigned char* raw)
      : q_tile(tc::aligned_smem(raw)),
        k_ring(q_tile + Tile::kQBytes),
        v_ring(k_ring + Tile::kStages * Tile::kTileBytes),
        q_full(reinterpret_cast<std::uint64_t*>(v_ring + Tile::kStages * Tile::kTileBytes)),
        k_full(q_full + 1),
        k_empty(k_full + Tile::kStages),
        v_full(k_empty + Tile::kStages),
        v_empty(v_full + Tile::kStages) {}
};
// [/doc:step2_smem]

// [doc:step2_producer]
// The producer (one thread): Q's rows for every consumer into q_tile, onto q_full (produce_q), then for each key tile
// j < tiles its K, then its V, each into the next stage of its ring once both consumers have released it
// (produce_k_v). token_q: the block's first query token; token_k: the sequence's first key token; kvh: the KV head;
// it0: the slices each ring had carried before (0 but in step 5's persistent kernel).
template <typename Tile>
__device__ inline void produce_q(unsigned char* q_tile, std::uint64_t* q_full, const CUtensorMap& map_q, int token_q,
                                 int h) {
  tc::mbarrier_arrive_expect_tx(q_full, Tile::kQBytes);
#pragma unroll
  for (int c = 0; c < Tile::kConsumers; ++c)
#pragma unroll
    for (int p = 0; p < Tile::kPanels; ++p)
      tc::cp_async_bulk_tensor_3d_global_to_shared(q_tile + c * Tile::kHeadDim * 128 + p * 64 * 128, &map_q, 64 * p,
                                                   token_q + 64 * c, h, q_full);
}
template <typename Tile>
__device__ inline void produce_k_v(const Step2Smem<Tile>& sm, const CUtensorMap& map_k, const CUtensorMap& map_v,
                                   int token_k, int kvh, int tiles, int it0) {
  constexpr int S = Tile::kStages, BN = Tile::kBlockN;
  for (int j = 0; j < tiles; ++j) {
    const tc::RingSlot slot = tc::ring_slot(it0 + j, S);
    // (A mutation point: a test loads the middle tile's neighbour in its place, one K tile twice.)
    const int k_key = token_k + BN * tc::mutation_point(tc::MutationSite::KSlice, j, tiles);
    tc::mbarrier_wait_parity(&sm.k_empty[slot.stage], tc::ring_empty_wait_parity(it0 + j, S));
    tc::mbarrier_arrive_expect_tx(&sm.k_full[slot.stage], Tile::kTileBytes);
#pragma unroll
    for (int p = 0; p < Tile::kPanels; ++p)
      tc::cp_async_bulk_tensor_3d_global_to_shared(sm.k_ring + slot.stage * Tile::kTileBytes + p * BN * 128, &map_k,
                                                   64 * p, k_key, kvh, &sm.k_full[slot.stage]);
    tc::mbarrier_wait_parity(&sm.v_empty[slot.stage], tc::ring_empty_wait_parity(it0 + j, S));
    tc::mbarrier_arrive_expect_tx(&sm.v_full[slot.stage], Tile::kTileBytes);
#pragma unroll
    for (int p = 0; p < Tile::kPanels; ++p)
      tc::cp_async_bulk_tensor_3d_global_to_shared(sm.v_ring + slot.stage * Tile::kTileBytes + p * BN * 128, &map_v,
                                                   64 * p, token_k + BN * j, kvh, &sm.v_full[slot.stage]);
  }
}
template <typename Tile>
__device__ inline void produce_q_k_v(const Step2Smem<Tile>& sm, const CUtensorMap& map_q, const CUtensorMap& map_k,
                                     const CUtensorMap& map_v, int token_q, int token_k, int h, int kvh, int tiles) {
  produce_q<Tile>(sm.q_tile, sm.q_full, map_q, token_q, h);
  produce_k_v<Tile>(sm, map_k, map_v, token_k, kvh, tiles, 0);
}
// [/doc:step2_producer]

// [doc:step2_block]
// One consumer warpgroup's view of the block: which consumer (c: warpgroup c + 1, rows 64c .. 64c + 63 of the row
// block), its thread's first row within them (lo: tc::wgmma_m64nNk16_d_coord), its Q rows, and the two rings.
template <typename Tile>
struct Consumer {
  int c, lo;
  tc::WsConsumerRing<Tile::kStages, 1> k_slots, v_slots;
  std::uint32_t q_addr, k_addr, v_addr;
  __device__ Consumer(const Step2Smem<Tile>& sm, int warpgroup)
      : c(warpgroup - 1),
        lo(16 * ((threadIdx.x / 32) % 4) + (threadIdx.x % 32) / 4),
        k_slots(sm.k_full, sm.k_empty),
        v_slots(sm.v_full, sm.v_empty),
        q_addr(tc::shared_address(sm.q_tile + c * Tile::kHeadDim * 128)),
        k_addr(tc::shared_address(sm.k_ring)),
        v_addr(tc::shared_address(sm.v_ring)) {}
};

// A row block: rows row0 .. row0 + kBlockM - 1 (row block x) of head h of sequence b (sq queries, sk keys, its first
// query and key tokens token0 and kt0), which sees `tiles` key tiles; empty() where it starts past a shorter
// sequence's end (varlen), and has no work at all.
struct RowBlockWork {
  int h, b, row0, sq, sk, token0, kt0, tiles;
  __device__ bool empty() const { return row0 >= sq; }
};
template <typename Tile>
__device__ inline RowBlockWork row_block_work(const DeviceShape& s, int x, int h, int b) {
  RowBlockWork w;
  w.h = h;
  w.b = b;
  w.row0 = x * Tile::kBlockM;
  w.sq = sequence_length(s, b, s.seqlen_q);
  w.sk = sequence_length(s, b, s.seqlen_k);
  w.token0 = first_token(s, b, s.seqlen_q);
  w.kt0 = first_token(s, b, s.seqlen_k);
  w.tiles = key_tiles(w.row0, Tile::kBlockM, Tile::kBlockN, w.sq, w.sk, s.causal);
  return w;
}

// What steps 2-4 run around their consumers: block (x, h, b)'s row block; two rings (each stage's "full" barrier
// armed by the producer, one arrival and the bytes, its "empty" one by both consumers) and Q's barrier;
// tc::ws_cluster_start, which orders every thread's first wait after the init; setmaxnreg and the role split; the
// producer (produce_q_k_v); and the exit. consume(work, consumer) is each consumer warpgroup's part. A block past a
// shorter sequence of a varlen batch returns at once, before any barrier.
template <typename Tile, typename Consume>
__device__ inline void warp_specialized_row_block(const Step2Smem<Tile>& sm, const CUtensorMap& map_q,
                                                  const CUtensorMap& map_k, const CUtensorMap& map_v,
                                                  const DeviceShape& s, Consume consume) {
  const RowBlockWork w = row_block_work<Tile>(s, blockIdx.x, blockIdx.y, blockIdx.z);
  if (w.empty()) return;

  tc::ws_ring_init<Tile::kStages, Tile::kConsumers, 1>(sm.k_full, sm.k_empty);
  tc::ws_ring_init<Tile::kStages, Tile::kConsumers, 1>(sm.v_full, sm.v_empty);
  if (threadIdx.x == 0) {
    tc::mbarrier_init(sm.q_full, 1);
    tc::fence_mbarrier_init_release_cluster();  // Q's barrier too exists before the TMA unit completes bytes on it
  }
  tc::ws_cluster_start();

  const int warpgroup = tc::warpgroup_index();
  if (warpgroup == 0) {
    tc::setmaxnreg_dec<Tile::kProducerRegisters>();  // all 128 threads: setmaxnreg is warpgroup-wide
    if (threadIdx.x == 0) {
      // (A mutation point: a test reads another KV head than the group's.)
      const int kvh = tc::mutation_point(tc::MutationSite::KvHead, kv_head_of(w.h, s.heads, s.kv_heads), s.kv_heads);
      produce_q_k_v<Tile>(sm, map_q, map_k, map_v, w.token0 + w.row0, w.kt0, w.h, kvh, w.tiles);
    }
  } else {
    tc::setmaxnreg_inc<Tile::kConsumerRegisters>();
    consume(w, Consumer<Tile>(sm, warpgroup));
  }
  tc::ws_cluster_finish();  // every thread, the producer warpgroup's idle ones too, before the block leaves
}
// [/doc:step2_block]

// [doc:step2_kernel]
// Block (x, h, b): query rows 128x .. 128x + 127 of head h of sequence b, consumer c rows 64c .. 64c + 63 of them.
// As step 1's kernel otherwise (maps, layouts, scale_log2, masking). Preconditions: grid (ceil(seqlen_q / 128),
// heads, batch), block Tile::kThreads, Tile::kSmemBytes of dynamic shared memory; sm_90a. Errors: none reported.
// Source: PTX ISA, "setmaxnreg", "mbarrier", "cp.async.bulk.tensor", "wgmma.mma_async"; FlashAttention-3 (Shah et
// al., 2024), section 3.1.
template <typename Tile, typename T>
__global__ void __launch_bounds__(Tile::kThreads, 1)
    step2_attention_kernel(const __grid_constant__ CUtensorMap map_q, const __grid_constant__ CUtensorMap map_k,
                           const __grid_constant__ CUtensorMap map_v, T* __restrict__ o, float* __restrict__ lse,
                           const DeviceShape s, float scale_log2) {
  constexpr int D = Tile::kHeadDim, BN = Tile::kBlockN;
  extern __shared__ unsigned char smem_raw[];
  const Step2Smem<Tile> sm(smem_raw);
  warp_specialized_row_block<Tile>(sm, map_q, map_k, map_v, s, [&](const RowBlockWork& w, const Consumer<Tile>& u) {
    const int crow0 = w.row0 + 64 * u.c;  // this consumer's first row
    float acc[D / 2] = {};
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
    tc::mbarrier_wait_parity(sm.q_full, 0);
    for (int j = 0; j < w.tiles; ++j) {
      // S from K's stage, which goes back as soon as the wgmmas have read it; the softmax; P V from V's stage.
      tc::trace_point(kWaitLoads);
      const int ks = u.k_slots.wait(j).stage;
      float sacc[BN / 2];
      tc::trace_point(kWaitTensorCores);
      issue_s<BN, Tile::kPanels, T>(sacc, u.q_addr, 64 * 128, u.k_addr + ks * Tile::kTileBytes, BN * 128);
      tc::wgmma_wait_group<0>();
      tc::trace_point(kSoftmax);
      u.k_slots.release(ks);
      if (tile_needs_mask(crow0, BN * j, BN, w.sq, w.sk, s.causal))
        mask<BN>(sacc, crow0 + u.lo, BN * j, w.sq, w.sk, s.causal);
      online_softmax<BN, D>(sacc, acc, m, l, scale_log2);
      std::uint32_t pa[BN / 16][4];
      p_fragments<BN, T>(sacc, pa);
      tc::trace_point(kWaitLoads);
      const int vs = u.v_slots.wait(j).stage;
      tc::trace_point(kWaitTensorCores);
      issue_pv<BN, D, T>(acc, pa, u.v_addr + vs * Tile::kTileBytes);
      tc::wgmma_wait_group<0>();
      u.v_slots.release(vs);
    }
    tc::trace_point(kWaitLoads);  // the epilogue: its end is the next record, or none
    write_o_and_lse<T, D>(acc, m, l, o, lse, s, w.b, w.h, crow0, w.token0, w.sq);
  });
}
// [/doc:step2_kernel]

}  // namespace attention
