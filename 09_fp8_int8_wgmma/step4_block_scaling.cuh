// Chapter 09, step 4 -- block scaling, DeepSeek-V3's recipe: one fp32 scale per 1 x 128 block of A (a row's 128
// values of one K group) and per 128 x 128 block of B, applied as each group's partial sum is promoted.
//
// What it adds over step 3: over one K group every product of C(i, j)'s sum carries the same two scales, sa(i, g)
// and sb(j / 128, g) (tc/layouts/block_scale.hpp), so the promotion multiplies the group's 8-bit partial sum by their
// product as it adds it: acc += sa * sb * part, one FFMA a register where step 3 had an FADD. The producer loads
// the tile's 128 A scales of each slice by TMA into the ring beside the slice (a 2-D map over sa: 128 rows by one K
// group, zero past M), counted in the same full barrier, so they land with the operands they scale; each consumer's
// 128 columns are one B block, whose scale it reads from global memory, one value a slice, issued before it waits.
// Precondition: K a multiple of 128, so that every slice is one K group.
#pragma once

#include "step3_promotion.cuh"

#include "tc/mutation_point.cuh"
#include "tc/padded_gemm.hpp"

#include "tc/device_buffer.hpp"
#include "tc/layouts/block_scale.hpp"
#include "tc/reference.hpp"  // tc::validate_gemm_arguments
#include "tc/tile_contract.hpp"
#include "tc/tma.hpp"
#include "tc/ws_block.cuh"

#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

// [doc:block_scaled_tile]
// Step 3's tile and a ring of A's scales: 128 fp32 a stage, 128-byte aligned (a TMA destination) after the barriers.
template <int Stages = 4>
struct BlockScaledTile : PromotedTile<Stages> {
  static constexpr int kScaleBytes = 128 * 4;  // one stage's A scales: a row of 128
  static constexpr int kScaleOffset = Stages * PromotedTile<Stages>::kStageBytes + 128;  // past the barriers
  static constexpr int kSmemBytes = 1024 + kScaleOffset + Stages * kScaleBytes;  // and tc::aligned_smem's slack
  static_assert(2 * Stages * 8 <= 128, "the barriers fit before the scales");
  static_assert(kSmemBytes <= 227 * 1024, "an H100/H200 block may have at most 227 KB of shared memory");
};

// The producer's extra loads: the tile's 128 A scales of slice s (K group s), rows tile.row .., into the stage's slot.
struct AScaleLoads {
  static constexpr std::uint32_t kBytes = 128 * 4;
  const CUtensorMap* map_sa;
  float* ring;
  __device__ void operator()(int stage, int s, const tc::PlannedTile& tile, std::uint64_t* full) const {
    tc::cp_async_bulk_tensor_2d_global_to_shared(ring + stage * 128, map_sa, tile.row, s, full);
  }
};
// [/doc:block_scaled_tile]

// [doc:step4_kernel]
// As step 3's kernel, with each group's partial sum scaled as it is promoted: map_sa reads A's scales (sa, m rows of
// each K group, ld_sa apart) in boxes of 128 rows by one group; sb is B's (column block by column block, ld_sb apart).
// Preconditions: as step 3's; k a multiple of 128. Source: as step 3's; DeepSeek-V3 Technical Report, section 3.3.
template <typename Tile, typename Input, typename Epilogue>
__global__ void __launch_bounds__(Tile::kThreads, 1)
    block_scaled_gemm_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                             int m, int n, int k, float alpha, float beta,
                             const __grid_constant__ typename Epilogue::Params out, const tc::HeightPlan plan,
                             const __grid_constant__ CUtensorMap map_sa, const float* __restrict__ sb, int ld_sb) {
  constexpr int RB = Tile::kRowBlocks, N = Tile::kConsumerCols;
  constexpr std::uint32_t kRowBlockBytes = 64u * tc::kSliceBytes;  // 64 rows of A in a slice
  extern __shared__ unsigned char smem_raw[];
  const tc::WsSmem<Tile> smem(smem_raw);
  float* const a_scales = reinterpret_cast<float*>(smem.stages + Tile::kScaleOffset);  // [Stages][128]
  // Chapter 08's skeleton (tc/ws_block.cuh), its producer loading each slice's A scales too.
  const AScaleLoads scale_loads{&map_sa, a_scales};
  tc::ws_gemm_block<Tile, Input>(smem, map_a, map_b, plan, k, scale_loads, [&](const tc::WsConsumer<Tile>& c) {
    const int col0 = c.index * Tile::kConsumerCols;
    // The two rows of each 64-row block this thread's registers hold (tc::wgmma_m64nNk16_d_coord): registers i
    // with (i / 2) % 2 == 0 are row `lo`, the others row lo + 8.
    const int lo = 16 * ((threadIdx.x / 32) % 4) + (threadIdx.x % 32) / 4;
    // Cluster tile t: as step 3's, each slice's partial sums scaled as they are promoted.
    int it = 0;
    tc::WsHeldStage held;  // the stage this consumer's last epilogue staged C in
    for (int t = c.walk.first; t < plan.count(); t += c.walk.stride) {
      float acc[RB][N / 2] = {};  // fp32: the promoted sums
      float part[N / 2] = {};     // one row block's sum over one slice, in the fp8 accumulator
      const tc::PlannedTile tile = c.walk.tile(plan, t);
      const int block_col = tile.col + col0;  // this consumer's 128 columns: one B scale block, or none past N
      const float* const sb_block =
          block_col < n ? sb + std::size_t(block_col / tc::kScaleBlockK) * ld_sb : nullptr;
      for (int s = 0; s < c.walk.slices; ++s, ++it) {
        // Issued before the wait hides its latency. (A mutation point: a test doubles a block's scale, or zeroes
        // a slice's as a skipped promotion would.)
        const float b_loaded = sb_block != nullptr ? __ldg(sb_block + s) : 0.0f;
        const float b_scale = tc::mutation_point(tc::MutationSite::BScale, b_loaded, s, block_col);
        const int stage = c.ring.wait(it).stage;
        const std::uint64_t a = c.operands.a(stage), b = c.operands.b(stage);  // the stage's A and B (descriptors)
        const float* const sa = a_scales + stage * 128;  // this slice's scales of the tile's 128 rows
#pragma unroll
        for (int r = 0; r < RB; ++r) {
          const int row = tc::mutation_point(tc::MutationSite::AScaleRow, 64 * r + lo);  // a test: row ^ 1's
          const float f_lo = sa[row] * b_scale, f_hi = sa[row + 8] * b_scale;
          // The consumers share the tensor core as in step 3: each issues its group once its last adds are done.
          mma_slice_fresh<N, Input>(part, tc::advance_wgmma_descriptor(a, r * kRowBlockBytes), b);
          tc::wgmma_wait_group<0>();  // the group's sum is in part (and, for the last row block, the stage is read)
#pragma unroll
          for (int i = 0; i < N / 2; ++i) acc[r][i] += ((i / 2) % 2 == 0 ? f_lo : f_hi) * part[i];  // FFMAs
        }
        // Every row block has read the stage, scales included: release it, but for the tile's last, where the
        // epilogue stages C.
        if (s + 1 < c.walk.slices) c.ring.release(stage);
        if (s == 0) held.give_back(c.ring);  // the previous tile's staging, a slice into this one (tc::WsHeldStage)
      }
      store_promoted<Tile, Epilogue, RB, N>(c, smem, held, it, out, acc, m, n, tile, alpha, beta);  // as step 3's
    }
    Epilogue::finish(out, c.index);  // its last TMA stores have read the staging
  });
}
// [/doc:step4_kernel]

// [doc:step4]
struct Step4BlockScaling {
  static constexpr const char* name = "4 block-scaled";
  static constexpr bool kBlockScaled = true;
  static constexpr int kPromotionInterval = tc::kSliceElements<__nv_fp8_e4m3>;  // as step 3's: one slice
};
using Step4Tile = BlockScaledTile<>;

// D = alpha * sum over K groups g of sa(i, g) sb(j / 128, g) (A B over group g) + beta * C: e4m3 A (row-major m x k,
// lda) and B (column-major k x n, ldb), A's scales sa (ld_sa >= m) and B's sb (ld_sb >= scale_groups(k)) stored as
// tc/layouts/block_scale.hpp says, C column-major m x n (ldc) of type Out (bf16 or fp32). Preconditions: k a multiple
// of 128; A and B as TMA reads them (16-byte aligned, lda and ldb multiples of 16); an SM 9.0 GPU. C that the TMA
// store cannot write (m * sizeof(Out) or ldc not a multiple of 16 bytes) goes through a padded copy, and A's scales
// through a copy with ld_sa a multiple of 4 (TMA's 16-byte stride) where theirs is not. Errors: std::invalid_argument
// (one line) for bad sizes, leading dimensions or scale shapes; those of the launch.
template <typename Tile, typename Out>
void launch_fp8_block_scaled(int m, int n, int k, float alpha, const __nv_fp8_e4m3* A, int lda, const float* sa,
                             int ld_sa, const __nv_fp8_e4m3* B, int ldb, const float* sb, int ld_sb, float beta,
                             Out* C, int ldc, cudaStream_t stream) {
  tc::validate_gemm_arguments(tc::Op::T, tc::Op::N, m, n, k, lda, ldb, ldc, ldc);
  const int groups = tc::scale_groups(k);
  if (k % tc::kScaleBlockK != 0)
    throw std::invalid_argument("block scaling needs k a multiple of 128 (one scale per 128 values), got k = " +
                                std::to_string(k));
  if (ld_sa < m)
    throw std::invalid_argument("A's scales: ld_sa = " + std::to_string(ld_sa) + " is below m = " + std::to_string(m));
  if (ld_sb < groups)
    throw std::invalid_argument("B's scales: ld_sb = " + std::to_string(ld_sb) + " is below the K groups, " +
                                std::to_string(groups));
  if (m == 0 || n == 0) return;
  // k = 0: no K group, no scale, A and B unread (lda may be cuBLAS's 1): C = beta * C, which step 3's launcher
  // computes (a TMA map has no empty side).
  if (k == 0) {
    tc::launch_gemm_any_size<Gemm8<Step3Promotion, Step3Tile, tc::GemmPrecision<__nv_fp8_e4m3, float, Out>>>(
        m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
    return;
  }
  if (auto problem = tc::operand_problem(tc::kTmaOperandRule, A, lda, 1, "A"))
    throw std::invalid_argument(std::string(Step4BlockScaling::name) + ": " + *problem);
  if (auto problem = tc::operand_problem(tc::kTmaOperandRule, B, ldb, 1, "B"))
    throw std::invalid_argument(std::string(Step4BlockScaling::name) + ": " + *problem);
  // A's scales, with a row stride TMA takes.
  const int ld_sa_tma = (ld_sa + 3) / 4 * 4;
  tc::StreamOrderedBuffer<float> sa_copy(ld_sa_tma != ld_sa ? std::size_t(groups) * ld_sa_tma : 0, stream);
  if (ld_sa_tma != ld_sa)
    TC_CHECK(cudaMemcpy2DAsync(sa_copy.data(), 4 * ld_sa_tma, sa, 4 * ld_sa, 4 * m, groups, cudaMemcpyDeviceToDevice,
                               stream));
  const CUtensorMap map_sa = tc::make_tma_2d({ld_sa_tma != ld_sa ? sa_copy.data() : sa, 4, std::uint64_t(m),
                                              std::uint64_t(groups), 4 * std::uint64_t(ld_sa_tma), 128, 1,
                                              tc::Swizzle::None},
                                             CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
  // C, where the TMA store can write it; else a copy m_p rows high, whose rows m.. the TMA store may write (the tiles
  // reach them; A's map, m rows, reads zeros there) and which are not copied back.
  using Epilogue = tc::TmaStoreEpilogue<Out>;
  const bool c_direct = !tc::operand_problem(tc::kTmaStoreOperandRule, C, ldc, sizeof(Out), "C") &&
                        (std::size_t(m) * sizeof(Out)) % 16 == 0;
  const int m_p = c_direct ? m : (m + 7) / 8 * 8, ldc_p = c_direct ? ldc : m_p;
  tc::StreamOrderedBuffer<Out> c_copy(c_direct ? 0 : std::size_t(ldc_p) * n, stream);
  Out* const c = c_direct ? C : c_copy.data();
  if (!c_direct && beta != 0.0f)
    TC_CHECK(cudaMemcpy2DAsync(c, sizeof(Out) * ldc_p, C, sizeof(Out) * ldc, sizeof(Out) * m, n,
                               cudaMemcpyDeviceToDevice, stream));
  const typename Epilogue::Params out{tc::output_map(c, m_p, n, ldc_p), c, ldc_p};
  tc::launch_on_persistent_grid<Tile, block_scaled_gemm_kernel<Tile, __nv_fp8_e4m3, Epilogue>>(
      Step4BlockScaling::name, m, n, k, alpha, A, lda, B, ldb, beta, out, stream, map_sa, sb, ld_sb);
  if (!c_direct)
    TC_CHECK(cudaMemcpy2DAsync(C, sizeof(Out) * ldc, c, sizeof(Out) * ldc_p, sizeof(Out) * m, n,
                               cudaMemcpyDeviceToDevice, stream));
}
// [/doc:step4]
