// Chapter 10, step 4 -- stream-K: past 256 tokens, chapter 08's cluster tiles with every cluster given an equal share
// of the multiply-accumulate iterations, across tile boundaries.
//
// What it adds over step 3: above 256 tokens steps 1 to 3 run chapter 08's kernel, whose persistent clusters take
// whole tiles. Where the tiles are few or do not divide into the clusters, whole clusters wait: Llama-3-8B's O layer at
// 512 tokens makes 32 cluster tiles for 64 clusters, so half the GPU sits idle (step 1's table: 68 idle SMs). Here
// the tiles past the whole waves (the last full wave and the partial one) are streamed: cluster c runs iterations
// [begin(c), end(c)) of their slices of K in a row, then its whole tiles as chapter 08 runs them (the paper's
// "two-tile stream-K + data-parallel", stream_k_plan.hpp), so every cluster works the same time, and a tile that two
// or more clusters share is fixed up: each later cluster writes
// its fp32 partial to a workspace slot of its own and raises a flag (a release store); the owner, which ran the
// tile's first slices, waits on each flag (acquire loads) in cluster order and adds the partials in that order, so
// the result is the same bit for bit on every run; then it stores C as chapter 08 does. The producer and the slice
// loop are chapter 08's (tc/taller_tile_gemm.cuh), over a span of a tile's slices instead of all of them.
// Shapes and layouts: as step 1 (suite.hpp). Source: Osama et al., "Stream-K", PPoPP 2023; PTX ISA, "ld"/"st"
// (.acquire/.release, .gpu), "Memory Consistency Model", and as tc/taller_tile_gemm.cuh.
#pragma once

#include "schedule.hpp"
#include "step1_chapter08.cuh"
#include "step3_split_k.cuh"
#include "stream_k_plan.hpp"

#include "tc/check.hpp"
#include "tc/cluster.cuh"
#include "tc/gpu_flag.cuh"
#include "tc/layouts/mbarrier_ring.hpp"
#include "tc/layouts/tile_order.hpp"
#include "tc/layouts/waves.hpp"
#include "tc/mbarrier.cuh"
#include "tc/mutation_point.cuh"
#include "tc/persistent_grid.cuh"
#include "tc/taller_tile_gemm.cuh"
#include "tc/tma_store_epilogue.cuh"
#include "tc/warpgroup.cuh"
#include "tc/ws_block.cuh"
#include "tc/ws_tile.cuh"

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>

// A block's partial tile in the workspace: each consumer thread's accumulators, register i of consumer thread t at
// float i * 256 + t, so that a warp's 32 threads write and read 128 contiguous bytes.
template <typename Tile>
inline constexpr int kPartialFloats = Tile::kAccumulators * 256;

// [doc:stream_k_producer]
// The producer over this cluster's range: per span, slices [first, last) of its tile, loaded as chapter 08's producer
// loads a whole tile's (tc::ws_load_slices).
template <typename Tile>
__device__ inline void load_range(const tc::WsSmem<Tile>& smem, const CUtensorMap& map_a, const CUtensorMap& map_b,
                                  const tc::HeightPlan& plan, int rank, const stream_k::Plan& sk, int cluster) {
  int it = 0;  // slices this block has loaded: the ring's counter
  for (int at = sk.begin(cluster); at < sk.finish(cluster);) {
    const stream_k::Span span = stream_k::span_at(sk, cluster, at);
    at += span.last - span.first;
    const tc::PlannedTile tile = tc::planned_tile(plan, tc::kGroupClusterRows<Tile>, rank, span.tile);
    tc::ws_load_slices<Tile, __nv_bfloat16>(smem, map_a, map_b, tile, rank, span.first, span.last, sk.slices, it);
  }
}
// [/doc:stream_k_producer]

// [doc:stream_k_kernel]
// gridDim.x blocks in clusters of 2 run the iterations of `plan`'s cluster tiles (tall or short: the kernel takes
// either, as chapter 08's does) (bf16 in, fp32 accumulate) as sk divides them; a block's consumers accumulate each
// span, then write a partial and raise their flag (a span that does not start its tile) or add the later clusters'
// partials and store C with Epilogue (the owner's span). sk: over plan.count() tiles, ceil(k / 64) slices and
// gridDim.x / 2 clusters; a parameter, so that its fields are read from the constant bank, not held in registers the
// accumulators need (made in the kernel, they cost a spill). partials: a slot of kPartialFloats<Tile> floats per
// block; flags: one per block, all zero at launch, and left zero (the owner resets each flag it consumed).
// Preconditions: as tc::taller_tile_gemm_kernel, and k > 0; every block resident at once (the persistent grid), as an
// owner waits on later clusters. Errors: none reported.
template <typename Tile, typename Epilogue>
__global__ void __launch_bounds__(Tile::kThreads, 1)
    stream_k_gemm_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, int m,
                         int n, int k, float alpha, float beta, const __grid_constant__ typename Epilogue::Params out,
                         const tc::HeightPlan plan, const stream_k::Plan sk, float* partials, unsigned* flags) {
  constexpr int S = Tile::Stages, kCluster = Tile::ClusterM;
  constexpr int RB = Tile::kRowBlocks, kShort = Tile::kShortRowBlocks, kCols = Tile::kConsumerCols / 2;
  constexpr int kFixupBarrier = 3;  // named barriers 1 and 2 are the epilogue's (tc/tma_store_epilogue.cuh)
  static_assert(kCluster == 2 && Tile::kSplitN && Tile::kTwoHeights, "chapter 08's step 5 tile");
  extern __shared__ unsigned char smem_raw[];
  const tc::WsSmem<Tile> smem(smem_raw);
  // Chapter 08's skeleton (tc/ws_block.cuh), its producer walking this cluster's spans instead of whole tiles. Each
  // side reads its rank and cluster after setmaxnreg: held across it, they cost the producer's 24 registers a spill.
  tc::ws_block<Tile>(
      smem, [&] { load_range<Tile>(smem, map_a, map_b, plan, tc::cluster_ctarank(), sk, blockIdx.x / kCluster); },
      [&](int consumer, const tc::WsConsumerRing<S, kCluster>& ring) {
        const int rank = tc::cluster_ctarank(), cluster = blockIdx.x / kCluster;
        const int thread = threadIdx.x - 128;  // 0-255 over both consumers
        const int col0 = consumer * Tile::kConsumerCols;
        const tc::WsStageOperands<Tile> operands(smem, consumer);  // as chapter 08: all of A's rows, its half of B
        int it = 0;            // as chapter 08's kernel: the ring's counter,
        tc::WsHeldStage held;  // and the stage an epilogue still holds
        for (int at = sk.begin(cluster); at < sk.finish(cluster);) {
          const stream_k::Span span = stream_k::span_at(sk, cluster, at);
          at += span.last - span.first;
          const bool tall = span.tile < plan.tall_count();
          float acc[RB][kCols] = {};
          for (int s = span.first; s < span.last; ++s, ++it) {  // chapter 08's slice loop, over the span
            const int stage = ring.wait(it).stage;
            const std::uint64_t a = operands.a(stage), b = operands.b(stage);  // the stage's A and B (descriptors)
            if (!tall)
              tc::mma_slice_row_blocks<kShort, Tile::kConsumerCols, __nv_bfloat16>(
                  reinterpret_cast<float(&)[kShort][kCols]>(acc), a, b);
            else
              tc::mma_slice_row_blocks<RB, Tile::kConsumerCols, __nv_bfloat16>(acc, a, b);
            tc::wgmma_wait_group<1>();
            if (s > span.first) ring.release(tc::ring_slot(it - 1, S).stage);
            if (s == span.first) held.give_back(ring);
          }
          tc::wgmma_wait_group<0>();
          held.hold(tc::ring_slot(it - 1, S).stage);  // a span has a slice at least; released during the next span

          // [doc:fixup_writer]
          if (!span.starts_tile()) {
            // A later cluster's part of the tile: the partial into this block's slot, then the flag. The barrier orders
            // every consumer thread's stores before the release (bar.sync is in the memory model's causality order).
            float* const mine = partials + std::size_t(blockIdx.x) * kPartialFloats<Tile>;
#pragma unroll
            for (int r = 0; r < RB; ++r)
#pragma unroll
              for (int i = 0; i < kCols; ++i)
                if (r < kShort || tall) mine[(r * kCols + i) * 256 + thread] = acc[r][i];
            tc::named_barrier_sync(kFixupBarrier, 256);
            if (thread == 0) tc::st_release_gpu_u32(&flags[blockIdx.x], 1u);
            continue;
          }
          // [/doc:fixup_writer]
          // [doc:fixup_owner]
          // The owner: the partials of the later clusters that ran part of this tile, in cluster order, each from the
          // block with this block's rows. One thread acquires the flag (and resets it for the next launch, which the
          // kernel boundary orders after this one); the barrier then hands the acquire on to the other threads, which
          // read the partial past L1 (ld.global.cg), where no stale copy can be.
          for (int c = cluster + 1; c <= sk.last(span.tile); ++c) {
            if (!sk.works(c)) continue;
            const int from = c * kCluster + rank;
            if (thread == 0) {
              while (tc::ld_acquire_gpu_u32(&flags[from]) == 0u) {
              }
              tc::st_relaxed_gpu_u32(&flags[from], 0u);
            }
            __syncwarp();  // warp 4 reconverges after thread 0's wait: bar.sync is .aligned
            tc::named_barrier_sync(kFixupBarrier, 256);
            const float* const theirs = partials + std::size_t(from) * kPartialFloats<Tile>;
#pragma unroll
            for (int r = 0; r < RB; ++r)
#pragma unroll
              for (int i = 0; i < kCols; ++i)
                if (r < kShort || tall) {
                  const float partial = __ldcg(theirs + (r * kCols + i) * 256 + thread);
                  // (A mutation point: a test adds the first later cluster's partial twice.)
                  acc[r][i] += tc::mutation_point(tc::MutationSite::FixupPartial, partial, c - cluster);
                }
          }
          // [/doc:fixup_owner]
          const tc::PlannedTile tile = tc::planned_tile(plan, tc::kGroupClusterRows<Tile>, rank, span.tile);
          unsigned char* const staging = smem.b(held.stage);  // as chapter 08: its half of B in the span's last stage
#pragma unroll
          for (int r = 0; r < RB; ++r)
            if (r < kShort || tall)
              Epilogue::template store<Tile::kConsumerCols>(out, acc[r], m, n, tile.row + 64 * r, tile.col + col0,
                                                            alpha, beta, consumer, staging, r);
        }
        Epilogue::finish(out, consumer);
      });
}
// [/doc:stream_k_kernel]

// The fixup's global memory, made on first use and kept for the process: a partial and a flag for each of the
// persistent grid's `blocks`, the same count on every call on one GPU; the flags zeroed once, as every launch leaves
// them zero. Never freed: the driver frees it with the context at exit. Preconditions: one GPU per process, and step
// 4's launches in one stream at a time (two at once would share the slots). Errors: tc::CudaError.
struct StreamKWorkspace {
  float* partials = nullptr;
  unsigned* flags = nullptr;
};

template <typename Tile>
StreamKWorkspace stream_k_workspace(int blocks) {
  static const StreamKWorkspace w = [blocks] {
    StreamKWorkspace made;
    TC_CHECK(cudaMalloc(&made.partials, std::size_t(blocks) * kPartialFloats<Tile> * sizeof(float)));
    TC_CHECK(cudaMalloc(&made.flags, std::size_t(blocks) * sizeof(unsigned)));
    TC_CHECK(cudaMemset(made.flags, 0, std::size_t(blocks) * sizeof(unsigned)));
    return made;
  }();
  return w;
}

// [doc:stream_k_launch]
// Enqueues stream_k_gemm_kernel on every resident cluster (tc::persistent_blocks, not capped by the tile count: every
// cluster takes a share however few the tiles), with chapter 08's tall tile everywhere (tc::uniform_plan: 384 x 256
// cluster tiles): stream-K gives the clusters equal counts of iterations, so an iteration should cost the same in
// every tile, which two heights would not. C = alpha A B + beta C as step 1 takes them. k = 0 has no iteration to
// share: step 1 writes beta C. Preconditions: as launch_chapter08; see stream_k_workspace. Errors: as
// launch_chapter08; std::invalid_argument where the iterations overflow an int.
inline void launch_stream_k(int m, int n, int k, float alpha, const __nv_bfloat16* A, int lda, const __nv_bfloat16* B,
                            int ldb, float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream) {
  using Tile = Step1Chapter08::Tile;
  using Epilogue = tc::TmaStoreEpilogue<__nv_bfloat16>;
  constexpr auto kKernel = stream_k_gemm_kernel<Tile, Epilogue>;
  if (k == 0) return launch_chapter08(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  const int blocks = tc::persistent_blocks<Tile>(tc::resident_blocks<Tile, kKernel>("step 4 (stream-K)"), 1 << 30);
  const tc::HeightPlan plan = tc::uniform_plan<Tile>(m, n);
  const stream_k::Plan sk{plan.count(), tc::ceil_div(k, tc::kSliceK), blocks / Tile::ClusterM};
  if (!sk.fits())
    throw std::invalid_argument("step 4 (stream-K): " + std::to_string(m) + " x " + std::to_string(n) + " x " +
                                std::to_string(k) + " has more iterations than an int counts");
  const auto [map_a, map_b] = tc::operand_maps<Tile>(m, n, k, A, lda, B, ldb);
  const StreamKWorkspace w = stream_k_workspace<Tile>(blocks);
  const typename Epilogue::Params out{tc::output_map(C, m, n, ldc), C, ldc};
  const tc::ClusterLaunch<Tile> launch(blocks, stream);
  TC_CHECK(cudaLaunchKernelEx(&launch.config, kKernel, map_a, map_b, m, n, k, alpha, beta, out, plan, sk,
                              w.partials, w.flags));
}
// [/doc:stream_k_launch]

// [doc:step4]
// Step 4: step 3's choice up to 256 tokens, stream-K past them.
struct Step4StreamK {
  static constexpr const char* name = "4 stream-K";
  static Schedule choose(int m, int n, int k, int sms) {
    if (n < kStreamKMinTokens) return Step3SplitK::choose(m, n, k, sms);
    return {ScheduleKind::StreamK};
  }
};
// [/doc:step4]
static_assert(kStreamKMinTokens == Step2SmallM::kMaxTokens + 1, "stream-K takes over where one column of narrow "
                                                                 "tiles ends (schedule.hpp)");
