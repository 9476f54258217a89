// Chapter 04 -- an INT8 IMMA GEMM through shared memory with a skew: C = alpha * A * B + beta * C, with s8 x s8 or
// u8 x u8 products accumulated in s32.
//
// What it adds over chapter 02's block-tiled kernel:
// - The TN layout of NVIDIA's immaTensorCoreGemm sample and of cuBLAS's fastest int8 path: A row-major, B
//   column-major, so K runs along the memory lines of both. One 16-byte copy, one shared-memory chunk and one
//   fragment row are all 16 consecutive k, and A's rows and B's columns share one copy loop and one line layout.
// - The skew as a tile parameter: shared lines are kLd = BlockK + Skew bytes apart, so the same kernel runs with
//   Skew 0 and with the chosen skew, and tc/layouts/smem_banks.hpp predicts what each costs from the same address
//   function the kernel uses (ImmaTile::smem_offset).
// - Stages copied with cp.async (tc/cp_async.cuh), Stages - 1 of them in flight while the tensor cores work on the
//   oldest: chapter 02 staged one stage ahead through registers, which the 64 x 64 warp tiles here need for
//   accumulators (docs/04, "Why cp.async").
// - Partial block tiles: m, n, k need only be multiples of 16 (one fragment). Copies zero-fill past the edges and
//   the epilogue skips fragments outside C; other sizes go through tc::launch_gemm_any_size's padded copies.
// - Integer alpha and beta, applied in int32 (docs/04_int8_imma_shared.md gives the overflow bound on K).
#pragma once

#include "tc/check.hpp"
#include "tc/cp_async.cuh"
#include "tc/dynamic_smem.hpp"
#include "tc/gemm_args.hpp"
#include "tc/layouts/lane_ids.hpp"  // tc::Coord, tc::kWarpSize
#include "tc/layouts/tags.hpp"
#include "tc/tile_contract.hpp"
#include "tc/wmma.cuh"

#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

// [doc:tile]
// A block tile: BlockM x BlockN of C per block, BlockK bytes (= int8 elements) of K per shared-memory stage, Stages
// stages, WarpsM x WarpsN warps, and shared lines Skew bytes longer than BlockK.
template <int BlockM_, int BlockN_, int BlockK_, int WarpsM_, int WarpsN_, int Stages_, int Skew_>
struct ImmaTile {
  static constexpr int BlockM = BlockM_, BlockN = BlockN_, BlockK = BlockK_, Stages = Stages_, Skew = Skew_;
  static constexpr int WarpsM = WarpsM_, WarpsN = WarpsN_;
  static constexpr int kThreads = WarpsM * WarpsN * tc::kWarpSize;
  static constexpr int WarpM = BlockM / WarpsM, WarpN = BlockN / WarpsN;  // each warp's patch of C
  static constexpr int FragsM = WarpM / 16, FragsN = WarpN / 16;          // 16 x 16 accumulator fragments per warp
  // A stage is BlockM + BlockN lines of BlockK bytes: A's rows (row-major), then B's columns (column-major), K along
  // every line. kLd bytes separate consecutive lines.
  static constexpr int kChunk = 16;  // bytes per cp.async copy: the unit of every move from global to shared
  static constexpr int kChunksPerLine = BlockK / kChunk;
  static constexpr int kLines = BlockM + BlockN;
  static constexpr int kLd = BlockK + Skew;
  static constexpr int kStageBytes = kLines * kLd;
  static constexpr int kSmemBytes = Stages * kStageBytes;
  static constexpr int kCopies = kLines * kChunksPerLine / kThreads;  // 16-byte copies per thread per stage

  // The byte offset of k-byte `k` of line `line` within a stage. The kernel, the bank calculator and the figures in
  // docs/04 all use this one function.
  __host__ __device__ static constexpr int smem_offset(int line, int k) { return line * kLd + k; }
  // Which line and 16-byte chunk thread `thread` moves in its copy `i` of a stage: consecutive threads take
  // consecutive chunks along a line, so a warp reads whole 128-byte lines of A or B from global memory (coalesced).
  __host__ __device__ static constexpr tc::Coord copy_chunk(int thread, int i) {
    const int v = thread + i * kThreads;
    return {v / kChunksPerLine, v % kChunksPerLine};
  }
  // Where warp w's WarpM x WarpN patch starts inside the block tile: warps run down M first.
  __host__ __device__ static constexpr tc::Coord warp_origin(int warp) {
    return {warp % WarpsM * WarpM, warp / WarpsM * WarpN};
  }

  static_assert(BlockM % WarpsM == 0 && BlockN % WarpsN == 0, "warps must split the block tile evenly");
  static_assert(WarpM % 16 == 0 && WarpN % 16 == 0 && BlockK % 16 == 0,
                "a warp's patch must be whole 16 x 16 fragments, and a stage whole 16-deep K steps");
  static_assert(Skew >= 0 && Skew % 16 == 0,
                "load_matrix_sync needs ldm (kLd) a multiple of 16 bytes, and every cp.async 16-byte alignment");
  static_assert(kLines * kChunksPerLine % kThreads == 0, "every thread must issue the same number of copies");
  static_assert(Stages >= 2, "one stage computed while at least one more is copied");
  static_assert(BlockM * kChunksPerLine % tc::kWarpSize == 0,
                "a warp's copy must lie wholly in A's lines or wholly in B's, so the A/B choice is warp-uniform");
};

// The configuration docs/04 measures: the fastest of the bounded sweep (docs/results/04_int8_imma_shared_sweep_h200
// .csv), 128 x 128 of C per block, 4 warps of 64 x 64, 64-byte stages (4 K steps), 3 stages. Skew is left to the
// caller: 0 and 16 are the two the chapter compares, 32 is NVIDIA's sample's.
template <int Skew>
using DefaultImmaTile = ImmaTile<128, 128, 64, 2, 2, 3, Skew>;
// [/doc:tile]

// [doc:kernel]
// One block computes the Tile::BlockM x Tile::BlockN tile of C = alpha * A * B + beta * C at block (x, y).
// Shapes and layouts: A m x k row-major (lda >= k), B k x n column-major (ldb >= k), C m x n column-major (ldc >= m):
// cuBLAS's op(A) = T, op(B) = N. Units: elements (= bytes for A and B). P is tc::WmmaS8 or tc::WmmaU8; C, alpha and
// beta are int32, and C is read only when beta != 0.
// Preconditions: sm_80 or newer (cp.async); m, n, k multiples of 16; A, B, C 32-byte aligned and lda, ldb, ldc
// multiples of 16 bytes (the WMMA rules, which also align every 16-byte copy); blockDim.x == Tile::kThreads;
// Tile::kSmemBytes of dynamic shared memory;
// |alpha * sum + beta * c| < 2^31 (docs/04, "Overflow"). Errors: none reported; the launcher checks the contract.
// Source: CUDA C++ Programming Guide, "Warp Matrix Functions" (load_matrix_sync, mma_sync; "Element Types and Matrix
// Sizes" for s8/u8) and "Shared Memory"; PTX ISA, "cp.async".
template <typename P, typename Tile>
__global__ void __launch_bounds__(Tile::kThreads)
    imma_shared_gemm_kernel(int m, int n, int k, std::int32_t alpha, const typename P::Input* A, int lda,
                            const typename P::Input* B, int ldb, std::int32_t beta, std::int32_t* C, int ldc) {
  using namespace nvcuda;
  using In = typename P::Input;
  // 128-byte alignment: with kLd a multiple of 16, every 16-byte copy and every fragment row is then 16-byte aligned,
  // and the bank calculator's addresses (relative to a 128-byte boundary) are the real ones.
  extern __shared__ __align__(128) unsigned char smem[];
  const int block_row = blockIdx.x * Tile::BlockM;
  const int block_col = blockIdx.y * Tile::BlockN;
  const tc::Coord origin = Tile::warp_origin(threadIdx.x / tc::kWarpSize);

  // One stage: Tile::kCopies 16-byte cp.async copies per thread into the skewed lines of stage `stage`, closed into
  // one group. A chunk past m, n or k is zero-filled, so partial tiles add nothing to the sums.
  auto load_stage = [&](int k0, int stage) {
    unsigned char* s = smem + stage * Tile::kStageBytes;
    for (int i = 0; i < Tile::kCopies; ++i) {
      const tc::Coord c = Tile::copy_chunk(threadIdx.x, i);
      const bool is_a = c.row < Tile::BlockM;
      const int mn = is_a ? block_row + c.row : block_col + c.row - Tile::BlockM;  // row of A or column of B
      const int kk = k0 + c.col * Tile::kChunk;
      const bool outside = mn >= (is_a ? m : n) || kk >= k;
      const In* src = is_a ? A + static_cast<size_t>(mn) * lda + kk : B + static_cast<size_t>(mn) * ldb + kk;
      tc::cp_async_cg_shared_global_16(s + Tile::smem_offset(c.row, c.col * Tile::kChunk), outside ? A : src, outside);
    }
    tc::cp_async_commit_group();
  };

  wmma::fragment<wmma::accumulator, 16, 16, 16, std::int32_t> acc[Tile::FragsM][Tile::FragsN];
  for (auto& row : acc)
    for (auto& f : row) wmma::fill_fragment(f, 0);

  // Prologue: Stages - 1 stages in flight. Every thread commits exactly one group per stage, empty past the end of
  // K, so that "Stages - 2 groups pending" below always means "stage s has landed".
  const int stages_k = (k + Tile::BlockK - 1) / Tile::BlockK;
  for (int s = 0; s < Tile::Stages - 1; ++s) {
    if (s < stages_k) load_stage(s * Tile::BlockK, s);
    else tc::cp_async_commit_group();
  }
  for (int s = 0; s < stages_k; ++s) {
    tc::cp_async_wait_group<Tile::Stages - 2>();  // this thread's copies of stage s are done
    // One barrier, two reasons: every thread's copies of stage s are now visible to all warps, and every warp has
    // finished computing on stage s - 1, whose buffer the copy issued next overwrites.
    __syncthreads();
    const int next = s + Tile::Stages - 1;
    if (next < stages_k) load_stage(next * Tile::BlockK, next % Tile::Stages);
    else tc::cp_async_commit_group();

    const In* sa = reinterpret_cast<const In*>(smem + s % Tile::Stages * Tile::kStageBytes);  // A: lines 0..BlockM-1
    const In* sb = sa + Tile::smem_offset(Tile::BlockM, 0);                                   // B: the next BlockN
    for (int l = 0; l < Tile::BlockK; l += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, In, wmma::row_major> a[Tile::FragsM];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, In, wmma::col_major> b[Tile::FragsN];
      for (int i = 0; i < Tile::FragsM; ++i)
        wmma::load_matrix_sync(a[i], sa + Tile::smem_offset(origin.row + 16 * i, l), Tile::kLd);
      for (int j = 0; j < Tile::FragsN; ++j)
        wmma::load_matrix_sync(b[j], sb + Tile::smem_offset(origin.col + 16 * j, l), Tile::kLd);
      for (int i = 0; i < Tile::FragsM; ++i)
        for (int j = 0; j < Tile::FragsN; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
  }
  // Only empty groups can still be pending here (every real stage was waited for above), and the epilogue does not
  // touch shared memory, so no wait or barrier is needed before it.

  // Epilogue per fragment, skipping those past m or n (a partial block tile): C is read only when beta != 0.
  for (int i = 0; i < Tile::FragsM; ++i) {
    for (int j = 0; j < Tile::FragsN; ++j) {
      const int row = block_row + origin.row + 16 * i, col = block_col + origin.col + 16 * j;
      if (row >= m || col >= n) continue;
      std::int32_t* c_tile = C + row + static_cast<size_t>(col) * ldc;
      if (beta != 0) {
        wmma::fragment<wmma::accumulator, 16, 16, 16, std::int32_t> c;
        wmma::load_matrix_sync(c, c_tile, ldc, wmma::mem_col_major);
        for (int e = 0; e < c.num_elements; ++e) acc[i][j].x[e] = alpha * acc[i][j].x[e] + beta * c.x[e];
      } else {
        for (int e = 0; e < acc[i][j].num_elements; ++e) acc[i][j].x[e] *= alpha;
      }
      wmma::store_matrix_sync(c_tile, acc[i][j], ldc, wmma::mem_col_major);
    }
  }
}
// [/doc:kernel]

// [doc:launcher]
// Launch geometry, contract and launch, as tc/padded_gemm.hpp expects of a kernel: the tutorial's GEMM signature.
template <typename P, typename Tile>
struct ImmaSharedGemm {
  static_assert(std::is_same_v<P, tc::WmmaS8> || std::is_same_v<P, tc::WmmaU8>, "an 8-bit integer precision");
  using Precision = P;
  using LayoutA = tc::RowMajor;  // op(A) = T in cuBLAS's terms
  using LayoutB = tc::ColMajor;  // op(B) = N
  static constexpr const char* name = "INT8 IMMA shared-memory GEMM";
  // Partial block tiles are handled in the kernel, whole 16 x 16 x 16 fragments are not. A and B arrive by 16-byte
  // cp.async; C goes through WMMA's accumulator loads and stores.
  static constexpr tc::TileContract kContract{{16, 16, 16}, tc::kVector16OperandRule, tc::kWmmaOperandRule};

  // Enqueues the kernel. Preconditions: valid arguments that keep kContract, m, n > 0 (checked once, by
  // tc::launch_gemm_any_size or tc::launch_whole_tiles). Errors: std::runtime_error (one line) when this GPU has less
  // shared memory per block than Tile needs; tc::CudaError when the launch fails.
  static void launch(int m, int n, int k, std::int32_t alpha, const typename P::Input* A, int lda,
                     const typename P::Input* B, int ldb, std::int32_t beta, std::int32_t* C, int ldc,
                     cudaStream_t stream) {
    const auto kernel = imma_shared_gemm_kernel<P, Tile>;
    // Above 48 KB a block must opt in to more dynamic shared memory; once per instantiation.
    static const bool opted_in =
        (tc::opt_in_dynamic_shared_memory(kernel, Tile::kSmemBytes, "INT8 IMMA shared-memory GEMM"), true);
    (void)opted_in;
    const dim3 grid((m + Tile::BlockM - 1) / Tile::BlockM, (n + Tile::BlockN - 1) / Tile::BlockN);
    kernel<<<grid, Tile::kThreads, Tile::kSmemBytes, stream>>>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    tc::check_launch();
  }
};
// [/doc:launcher]
