// Chapter 08, step 4 -- the epilogue through shared memory and a TMA store: fp32 with st.shared, bf16 with stmatrix.
//
// What it adds over step 3: steps 1 to 3 store each accumulator register straight to global memory, 128 scalar
// stores a thread, 8 rows by 4 columns a warp instruction, and the consumer warpgroup's math waits until the last
// has left. Here each consumer stages its 64 x 256 part in 8 KB chunks of C (tc/layouts/epilogue.hpp: column-major
// like C, in the 128-byte swizzle, so the shared stores are conflict-free), and one thread hands each chunk to the
// TMA unit (cp.async.bulk.tensor, global <- shared), which writes it out, clipped to C, while the warpgroup stages
// the next chunk into the other buffer and then goes back to its wgmmas. For bf16 outputs the registers are rounded
// to bf16 pairs and stored with stmatrix.trans, four 8 x 8 matrices an instruction, transposed into C's
// column-major order. The ordering: every thread's generic stores, then fence.proxy.async (so the async proxy sees
// them), then a named barrier of the warpgroup's 128 threads, then the store; a buffer is overwritten only after
// cp.async.bulk.wait_group.read says the store that read it is done. beta != 0 reads C with ordinary loads.
#pragma once

#include "step3_cluster.cuh"

#include "tc/layouts/epilogue.hpp"
#include "tc/tma.hpp"
#include "tc/tma_store.cuh"
#include "tc/warpgroup.cuh"

#include <cuda_bf16.h>

#include <type_traits>

// [doc:tma_store_epilogue]
// C = alpha * acc + beta * C for one 64 x N accumulator of this warpgroup at (row0, col0), through two 8 KB buffers
// at staging + consumer x kBytesPerConsumer (step 4's staging, or step 5's half of B in a stage; 1024-byte aligned)
// and TMA stores of out.map_c (C column-major, m x n, ldc; boxes of EpilogueChunk<sizeof(Out)>). Out is float or
// __nv_bfloat16 (rounded to nearest). row_block: which of the consumer's 64-row accumulators of this tile it is (step
// 5's consumers hold three): the buffers alternate on from the previous one's chunks, so only a tile's first waits for
// every earlier store. Source: PTX ISA, "stmatrix", "cp.async.bulk.tensor",
// "cp.async.bulk.wait_group", "membar/fence" (fence.proxy.async), "bar.sync".
template <typename Out>
struct TmaStoreEpilogue {
  using Chunk = tc::EpilogueChunk<int(sizeof(Out))>;
  static constexpr int kBuffers = 2;  // stage one chunk while the TMA store of the previous one reads its buffer
  static constexpr int kBytesPerConsumer = kBuffers * Chunk::kBytes;
  struct Params {
    CUtensorMap map_c;
    const Out* C;  // read when beta != 0
    int ldc;
  };

  // C at register i's (row, col), 0 outside C. Out of line: inlined, the address arithmetic for every register of a
  // chunk took step 5's consumers past their 240 registers (ptxas spilled 16 bytes); beta == 0 never calls it.
  __device__ static __noinline__ float read_c(const Params& out, int m, int n, int row0, int col0, int warp, int lane,
                                               int i) {
    const tc::Coord p = tc::wgmma_m64nNk16_d_coord(warp, lane, i);
    const int row = row0 + p.row, col = col0 + p.col;
    return row < m && col < n ? static_cast<float>(out.C[row + static_cast<std::size_t>(col) * out.ldc]) : 0.0f;
  }
  template <int N>
  __device__ static void store(const Params& out, const float (&acc)[N / 2], int m, int n, int row0, int col0,
                               float alpha, float beta, int consumer, unsigned char* staging, int row_block = 0) {
    static_assert(N % Chunk::kCols == 0, "whole chunks");
    static_assert((N / Chunk::kCols) % kBuffers == 0, "each accumulator's chunks start on buffer 0 again");
    unsigned char* const mine = staging + consumer * kBytesPerConsumer;
    const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32, barrier = 1 + consumer;  // 0: __syncthreads
    const bool leader = threadIdx.x % 128 == 0;
    auto value = [&](int i) {  // alpha * acc + beta * C of register i
      float v = alpha * acc[i];
      if (beta != 0.0f) v += beta * read_c(out, m, n, row0, col0, warp, lane, i);
      return v;
    };
#pragma unroll
    for (int q = 0; q < N / Chunk::kCols; ++q) {
      unsigned char* const buffer = mine + (q % kBuffers) * Chunk::kBytes;
      if (leader) {  // the store that last read this buffer: the previous tile's (a tile's first chunk) or 2 before
        if (q == 0 && row_block == 0) tc::cp_async_bulk_wait_group_read<0>();
        else if (q >= kBuffers || row_block > 0) tc::cp_async_bulk_wait_group_read<kBuffers - 1>();
      }
      tc::named_barrier_sync(barrier, 128);  // ... has read it: the warpgroup may overwrite it
      if constexpr (std::is_same_v<Out, float>) {
#pragma unroll
        for (int r = 0; r < Chunk::kCols / 2; ++r) {  // 4 registers per 8-column group
          const int i = q * (Chunk::kCols / 2) + r;
          const tc::Coord p = tc::wgmma_m64nNk16_d_coord(warp, lane, i);
          *reinterpret_cast<float*>(buffer + tc::epilogue_offset<4>(p.row, p.col - q * Chunk::kCols)) = value(i);
        }
      } else {
#pragma unroll
        for (int j = 0; j < Chunk::kCols / 8; j += 2) {  // two 8-column groups, four 8 x 8 matrices, per stmatrix
          const int j_tile = q * (Chunk::kCols / 8) + j;
          std::uint32_t regs[4];
#pragma unroll
          for (int reg = 0; reg < 4; ++reg) {
            const __nv_bfloat162 pair = __floats2bfloat162_rn(value(tc::stmatrix_accumulator_index(j_tile, reg, 0)),
                                                              value(tc::stmatrix_accumulator_index(j_tile, reg, 1)));
            regs[reg] = *reinterpret_cast<const std::uint32_t*>(&pair);  // .x, the lower column, in bits 0..15
          }
          const tc::Coord start = tc::stmatrix_row_start(warp, j, lane);
          tc::stmatrix_x4_trans(tc::shared_address(buffer) + tc::epilogue_offset<2>(start.row, start.col), regs);
        }
      }
      tc::fence_proxy_async_shared_cta();    // this thread's generic stores, ordered before the TMA store reads them
      tc::named_barrier_sync(barrier, 128);  // every thread's part of the chunk is in the buffer
      if (leader) {
#pragma unroll
        for (int b = 0; b < Chunk::kBoxes; ++b)
          tc::cp_async_bulk_tensor_2d_shared_to_global(&out.map_c, row0 + b * Chunk::kBoxRows, col0 + q * Chunk::kCols,
                                                       buffer + b * Chunk::kBoxBytes);
        tc::cp_async_bulk_commit_group();
      }
    }
  }
  // Before the block exits: its last stores have read the buffers and written C.
  __device__ static void finish(const Params& /*out*/, int /*consumer*/) {
    if (threadIdx.x % 128 == 0) tc::cp_async_bulk_wait_group<0>();
  }
};
// [/doc:tma_store_epilogue]

// C's tensor map for the TMA store: m x n column-major (rows of m elements, ldc apart), boxes of one chunk's box.
template <typename Out>
CUtensorMap output_map(Out* C, int m, int n, int ldc) {
  using Chunk = typename TmaStoreEpilogue<Out>::Chunk;
  const CUtensorMapDataType type =
      std::is_same_v<Out, float> ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  return tc::make_tma_2d({C, int(sizeof(Out)), std::uint64_t(m), std::uint64_t(n), std::uint64_t(ldc) * sizeof(Out),
                          Chunk::kBoxRows, Chunk::kCols, tc::Swizzle::B128},
                         type);
}

// [doc:step4_launch]
// Enqueues persistent_gemm_kernel<Tile, Input, TmaStoreEpilogue<Out>>: steps 4 and 5. Errors: as launch_persistent.
template <typename Tile, typename Precision>
void launch_tma_store(const char* name, int m, int n, int k, float alpha, const typename Precision::Input* A, int lda,
                      const typename Precision::Input* B, int ldb, float beta, tc::output_t<Precision>* C, int ldc,
                      cudaStream_t stream) {
  using Out = tc::output_t<Precision>;
  constexpr int kPerConsumer = TmaStoreEpilogue<Out>::kBytesPerConsumer;
  static_assert(Tile::kStageStaging ? kPerConsumer == Tile::kConsumerCols * Tile::kRowBytes
                                    : Tile::kEpilogueBytes >= Tile::kConsumers * kPerConsumer,
                "two staging buffers per consumer: the tile's own, or exactly the consumer's half of B in a stage");
  const typename TmaStoreEpilogue<Out>::Params out{output_map(C, m, n, ldc), C, ldc};
  launch_persistent<Tile, typename Precision::Input, TmaStoreEpilogue<Out>>(name, m, n, k, alpha, A, lda, B, ldb, beta,
                                                                            out, stream);
}

struct Step4TmaStore {
  static constexpr const char* name = "4 TMA-store epilogue";
  static constexpr tc::OperandRule kCRule = tc::kTmaStoreOperandRule;  // C is a tensor map, stored by TMA, now
  template <typename Tile, typename Precision>
  static void launch_kernel(int m, int n, int k, float alpha, const typename Precision::Input* A, int lda,
                            const typename Precision::Input* B, int ldb, float beta, tc::output_t<Precision>* C,
                            int ldc, cudaStream_t stream) {
    launch_tma_store<Tile, Precision>(name, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  }
};
using Step4Tile = WsTile<4, 2, 2 * TmaStoreEpilogue<float>::kBytesPerConsumer>;
// [/doc:step4_launch]
