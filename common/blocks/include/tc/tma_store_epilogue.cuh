// The TMA-store epilogue of chapter 08's steps 4 and 5 (and of the chapters that take its kernel): a consumer
// warpgroup's accumulators to C through shared memory and cp.async.bulk.tensor, fp32 and s32 with st.shared, bf16
// with stmatrix.
//
// Each consumer stages its accumulators in 8 KB chunks of C (tc/layouts/epilogue.hpp: column-major like C, in the
// 128-byte swizzle, so the shared stores are conflict-free), and one thread hands each chunk to the TMA unit
// (global <- shared), which writes it out, clipped to C, while the warpgroup stages the next chunk into the other
// buffer. For bf16 outputs the registers are rounded to bf16 pairs and stored with stmatrix.trans, four 8 x 8 matrices
// an instruction, transposed into C's column-major order. The ordering: every thread's generic stores, then
// fence.proxy.async (so the async proxy sees them), then a named barrier of the warpgroup's 128 threads, then the
// store; a buffer is overwritten only after cp.async.bulk.wait_group.read says the store that read it is done.
// beta != 0 reads C with ordinary loads. An s32 C (chapter 09's int8 GEMM) takes s32 accumulators and int32 alpha and
// beta, as cuBLAS's CUBLAS_COMPUTE_32I does, and wraps on overflow as the s32 wgmma does.
// Preconditions: sm_90a; named barriers 1 and 2 free (consumer 0 and 1).
#pragma once

#include "tc/layouts/epilogue.hpp"
#include "tc/mbarrier.cuh"
#include "tc/layouts/wgmma.hpp"
#include "tc/tma.hpp"
#include "tc/tma_store.cuh"
#include "tc/warpgroup.cuh"

#include <cuda.h>
#include <cuda_bf16.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace tc {

// [doc:tma_store_epilogue]
// C = alpha * acc + beta * C for one 64 x N accumulator of this warpgroup at (row0, col0), through two 8 KB buffers
// at staging + consumer x kBytesPerConsumer (step 4's staging, or step 5's half of B in a stage; 1024-byte aligned)
// and TMA stores of out.map_c (C column-major, m x n, ldc; boxes of EpilogueChunk<sizeof(Out)>). Out is float,
// __nv_bfloat16 (rounded to nearest) or std::int32_t (s32 accumulators, alpha and beta: above). row_block: which of
// the consumer's 64-row accumulators of this tile it is (step 5's consumers hold three): the buffers alternate on from
// the previous one's chunks, so only a tile's first waits for every earlier store. Source: PTX ISA, "stmatrix",
// "cp.async.bulk.tensor", "cp.async.bulk.wait_group", "membar/fence" (fence.proxy.async), "bar.sync".
template <typename Out>
struct TmaStoreEpilogue {
  static_assert(std::is_same_v<Out, float> || std::is_same_v<Out, __nv_bfloat16> || std::is_same_v<Out, std::int32_t>,
                "fp32, bf16 or s32 C");
  // The accumulators' type, and alpha's and beta's: s32 for an s32 C, else fp32.
  using Scalar = std::conditional_t<std::is_same_v<Out, std::int32_t>, std::int32_t, float>;
  using Chunk = EpilogueChunk<int(sizeof(Out))>;
  static constexpr int kBuffers = 2;  // stage one chunk while the TMA store of the previous one reads its buffer
  static constexpr int kBytesPerConsumer = kBuffers * Chunk::kBytes;
  struct Params {
    CUtensorMap map_c;
    const Out* C;  // read when beta != 0
    int ldc;
  };

  // C at register i's (row, col), 0 outside C. Out of line: inlined, the address arithmetic for every register of a
  // chunk took step 5's consumers past their 240 registers (ptxas spilled 16 bytes); beta == 0 never calls it.
  __device__ static __noinline__ Scalar read_c(const Params& out, int m, int n, int row0, int col0, int warp, int lane,
                                                int i) {
    const Coord p = wgmma_m64nNk16_d_coord(warp, lane, i);
    const int row = row0 + p.row, col = col0 + p.col;
    return row < m && col < n ? static_cast<Scalar>(out.C[row + static_cast<std::size_t>(col) * out.ldc]) : Scalar(0);
  }
  template <int N>
  __device__ static void store(const Params& out, const Scalar (&acc)[N / 2], int m, int n, int row0, int col0,
                               Scalar alpha, Scalar beta, int consumer, unsigned char* staging, int row_block = 0) {
    static_assert(N % Chunk::kCols == 0, "whole chunks");
    static_assert((N / Chunk::kCols) % kBuffers == 0, "each accumulator's chunks start on buffer 0 again");
    unsigned char* const mine = staging + consumer * kBytesPerConsumer;
    const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32, barrier = 1 + consumer;  // 0: __syncthreads
    const bool leader = threadIdx.x % 128 == 0;
    auto value = [&](int i) {  // alpha * acc + beta * C of register i
      Scalar v = alpha * acc[i];
      if (beta != Scalar(0)) v += beta * read_c(out, m, n, row0, col0, warp, lane, i);
      return v;
    };
#pragma unroll
    for (int q = 0; q < N / Chunk::kCols; ++q) {
      unsigned char* const buffer = mine + (q % kBuffers) * Chunk::kBytes;
      if (leader) {  // the store that last read this buffer: the previous tile's (a tile's first chunk) or 2 before
        if (q == 0 && row_block == 0) cp_async_bulk_wait_group_read<0>();
        else if (q >= kBuffers || row_block > 0) cp_async_bulk_wait_group_read<kBuffers - 1>();
      }
      named_barrier_sync(barrier, 128);  // ... has read it: the warpgroup may overwrite it
      if constexpr (sizeof(Out) == 4) {  // fp32 or s32: one register an element
#pragma unroll
        for (int r = 0; r < Chunk::kCols / 2; ++r) {  // 4 registers per 8-column group
          const int i = q * (Chunk::kCols / 2) + r;
          const Coord p = wgmma_m64nNk16_d_coord(warp, lane, i);
          *reinterpret_cast<Out*>(buffer + epilogue_offset<4>(p.row, p.col - q * Chunk::kCols)) = value(i);
        }
      } else {
#pragma unroll
        for (int j = 0; j < Chunk::kCols / 8; j += 2) {  // two 8-column groups, four 8 x 8 matrices, per stmatrix
          const int j_tile = q * (Chunk::kCols / 8) + j;
          std::uint32_t regs[4];
#pragma unroll
          for (int reg = 0; reg < 4; ++reg) {
            const __nv_bfloat162 pair = __floats2bfloat162_rn(value(stmatrix_accumulator_index(j_tile, reg, 0)),
                                                              value(stmatrix_accumulator_index(j_tile, reg, 1)));
            regs[reg] = *reinterpret_cast<const std::uint32_t*>(&pair);  // .x, the lower column, in bits 0..15
          }
          const Coord start = stmatrix_row_start(warp, j, lane);
          stmatrix_x4_trans(shared_address(buffer) + epilogue_offset<2>(start.row, start.col), regs);
        }
      }
      fence_proxy_async_shared_cta();    // this thread's generic stores, ordered before the TMA store reads them
      named_barrier_sync(barrier, 128);  // every thread's part of the chunk is in the buffer
      if (leader) {
#pragma unroll
        for (int b = 0; b < Chunk::kBoxes; ++b)
          cp_async_bulk_tensor_2d_shared_to_global(&out.map_c, row0 + b * Chunk::kBoxRows, col0 + q * Chunk::kCols,
                                                       buffer + b * Chunk::kBoxBytes);
        cp_async_bulk_commit_group();
      }
    }
  }
  // Before the block exits: its last stores have read the buffers and written C.
  __device__ static void finish(const Params& /*out*/, int /*consumer*/) {
    if (threadIdx.x % 128 == 0) cp_async_bulk_wait_group<0>();
  }
};
// [/doc:tma_store_epilogue]

// C's tensor map for the TMA store: m x n column-major (rows of m elements, ldc apart), boxes of one chunk's box.
// Preconditions: C 16-byte aligned, ldc * sizeof(Out) a multiple of 16 bytes. Errors: std::invalid_argument from
// tc::make_tma_2d.
template <typename Out>
CUtensorMap output_map(Out* C, int m, int n, int ldc) {
  using Chunk = typename TmaStoreEpilogue<Out>::Chunk;
  const CUtensorMapDataType type = std::is_same_v<Out, float>           ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                                   : std::is_same_v<Out, std::int32_t> ? CU_TENSOR_MAP_DATA_TYPE_INT32
                                                                       : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  return make_tma_2d({C, int(sizeof(Out)), std::uint64_t(m), std::uint64_t(n), std::uint64_t(ldc) * sizeof(Out),
                          Chunk::kBoxRows, Chunk::kCols, Swizzle::B128},
                         type);
}

}  // namespace tc
