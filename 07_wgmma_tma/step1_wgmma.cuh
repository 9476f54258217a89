// Chapter 07, step 1 -- wgmma reads A and B from shared memory through descriptors.
//
// What it adds over chapter 06: no ldmatrix and no fragments. One warpgroup (128 threads) copies a 64 x 64 slice of A
// and a 128 x 64 slice of B into shared memory with ordinary 16-byte loads and stores, each 16-byte chunk at the
// place the 128-byte swizzle gives it (tc::swizzle_address). Then four wgmma.mma_async m64n128k16 multiply the slice
// straight out of shared memory into 64 fp32 registers a thread. Three things are new:
//   - the descriptor: 64 bits that tell wgmma where a tile is and how it is laid out;
//   - the async proxy: wgmma reads shared memory as the TMA unit does, not as loads do, so ordinary stores must be
//     fenced (fence.proxy.async) before it may see them;
//   - fence / commit / wait: wgmma runs asynchronously; its registers are ours again only after wgmma.wait_group.
// One stage: the copies of the next slice wait until the wgmmas of this one have read it.
#pragma once

#include "wgmma_tile.cuh"

#include "tc/mbarrier.cuh"

// [doc:step1_copy]
// Copies the rows x 64 slice starting at `src` (rows `ld` elements apart, K contiguous) into `dst` in the 128-byte
// swizzle: row r's 16-byte chunk c lands at r * 128 + tc::swizzle_address of that offset. All Threads threads take
// part; chunk j of the slice is thread j % Threads's (j / Threads)-th copy, so a warp reads whole 128-byte rows.
template <int Rows, int Threads, typename Input>
__device__ inline void copy_slice_swizzled(unsigned char* dst, const Input* src, int ld) {
  constexpr int kChunksPerRow = 128 / 16;
  static_assert(Rows * kChunksPerRow % Threads == 0, "every thread copies the same number of chunks");
#pragma unroll
  for (int j = threadIdx.x; j < Rows * kChunksPerRow; j += Threads) {
    const int row = j / kChunksPerRow, chunk = j % kChunksPerRow;
    const uint4 v = *reinterpret_cast<const uint4*>(src + static_cast<std::size_t>(row) * ld + chunk * 8);
    *reinterpret_cast<uint4*>(dst + tc::swizzle_address(tc::Swizzle::B128, row * 128 + chunk * 16)) = v;
  }
}
// [/doc:step1_copy]

// [doc:step1_kernel]
// Block (bx, by) of a grid of (n / BlockN) x (m / BlockM) computes C's BlockM x BlockN tile at rows by * BlockM,
// columns bx * BlockN. Shapes and layouts: as WgmmaGemm (wgmma_tile.cuh); A row-major (lda), B column-major (ldb),
// C column-major (ldc). Preconditions: m, n, k multiples of the tile; A, B, lda, ldb 16-byte aligned; Tile::kThreads
// threads and Tile::kSmemBytes of dynamic shared memory; sm_90a. Errors: none reported.
// Source: PTX ISA, "wgmma.mma_async", "Matrix Descriptor Format", "fence.proxy.async".
template <typename Tile, typename Input>
__global__ void __launch_bounds__(Tile::kThreads) wgmma_copy_gemm_kernel(int m, int n, int k, float alpha,
                                                                         const Input* A, int lda, const Input* B,
                                                                         int ldb, float beta, float* C, int ldc) {
  static_assert(Tile::kConsumers == 1 && Tile::Stages == 1, "step 1 is one warpgroup and one stage");
  extern __shared__ unsigned char smem_raw[];
  unsigned char* a_slice = tc::aligned_smem(smem_raw);
  unsigned char* b_slice = a_slice + Tile::kSliceABytes;
  const int row0 = blockIdx.y * Tile::BlockM, col0 = blockIdx.x * Tile::BlockN;
  float acc[Tile::kAccumulators] = {};  // wgmma always accumulates (scale-d = 1), so D starts at zero

  for (int k0 = 0; k0 < k; k0 += Tile::BlockK) {
    copy_slice_swizzled<Tile::BlockM, Tile::kThreads>(a_slice, A + static_cast<std::size_t>(row0) * lda + k0, lda);
    copy_slice_swizzled<Tile::BlockN, Tile::kThreads>(b_slice, B + static_cast<std::size_t>(col0) * ldb + k0, ldb);
    tc::fence_proxy_async_shared_cta();  // this thread's generic stores, before wgmma's async-proxy reads
    __syncthreads();                     // every thread's chunks are in place before any warp's wgmma reads them
    tc::mma_slice<Tile::BlockN, Input>(acc, tc::shared_address(a_slice), tc::shared_address(b_slice));
    tc::wgmma_wait_group<0>();  // the slice has been read (and acc written) before it is overwritten or stored
    __syncthreads();            // no thread copies the next slice while another warp's wgmma may still read this one
  }
  store_accumulators<Tile>(acc, C, ldc, row0, col0, alpha, beta);
}
// [/doc:step1_kernel]

// [doc:step1_launch]
struct Step1WgmmaCopy {
  static constexpr const char* name = "1 wgmma+copies";
  template <typename Tile, typename Input>
  static void launch_kernel(int m, int n, int k, float alpha, const Input* A, int lda, const Input* B, int ldb,
                            float beta, float* C, int ldc, cudaStream_t stream) {
    launch_on_block_tiles<Tile, wgmma_copy_gemm_kernel<Tile, Input>>(name, m, n, stream, m, n, k, alpha, A, lda, B,
                                                                     ldb, beta, C, ldc);
  }
};
using Step1Tile = WgmmaTile<64, 128, 1>;
// [/doc:step1_launch]
