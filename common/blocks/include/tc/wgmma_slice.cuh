// One K slice for wgmma: what chapters 07, 08 and 09 feed their tensor cores, written once.
//
// The chapters keep A (row-major M x K) and B (column-major K x N) K-major in shared memory, 128 bytes of K per slice:
// one 128-byte row per operand row, in the 128-byte swizzle (tc/layouts/wgmma.hpp), which is what TMA writes
// (k_major_map) and what the descriptors describe. That is 64 elements of a 16-bit type, in 4 wgmma K steps of 16
// (m64nNk16), or 128 of an 8-bit type (fp8, s8, u8), in 4 K steps of 32 (m64nNk32): either way a K step is 32 bytes
// of each row, so the shared-memory layout, the descriptors and the ring do not depend on the type.
// Shapes: an A slice of 64 rows (one warpgroup's) x one slice of K, a B slice of N rows x one slice of K; accumulators
// as tc::wgmma_m64nNk16_d_coord (the layout of D does not depend on K). Units: bytes for shared addresses.
// Preconditions: sm_90a for the device functions; every slice 1024-byte aligned (tc::wgmma_tile_base_problem).
// Errors: none reported on the device; k_major_map throws what tc::make_tma_2d throws.
// Source: PTX ISA, "Matrix Descriptor Format" and "Shared Memory Matrix Layout" (K-major, 128B swizzle),
// "wgmma.mma_async" (the .m64nNk16 and .m64nNk32 forms); CUDA Driver API, "cuTensorMapEncodeTiled".
#pragma once

#include "tc/layouts/wgmma.hpp"
#include "tc/tma.hpp"
#include "tc/wgmma.cuh"

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <type_traits>

namespace tc {

inline constexpr int kSliceBytes = 128;  // K bytes of one slice's row: one 128-byte swizzle row
inline constexpr int kSliceK = 64;       // K elements of one slice of 16-bit elements

// The K elements of one slice of Input (64 for 16-bit types, 128 for 8-bit ones), and the wgmma K step's.
template <typename Input>
inline constexpr int kSliceElements = kSliceBytes / int(sizeof(Input));
template <typename Input>
inline constexpr int kWgmmaStepK = 32 / int(sizeof(Input));

// wgmma's accumulator for Input: s32 for s8 and u8, fp32 for every floating-point input.
template <typename Input>
using wgmma_accumulator_t = wgmma_k32_accumulator_t<Input>;

// [doc:descriptor]
// The descriptor of 16 K-columns (one wgmma's K) of a swizzled slice: `slice` the slice's shared address (1024-byte
// aligned: tc::wgmma_tile_base_problem), kk which 16-column step (0..3); host code too, so that the chapters print
// what the kernels compute. Advancing the start address by 32 bytes per step moves within each 128-byte row; the
// hardware applies the swizzle to the address it forms, so the pattern TMA wrote is read back exactly.
__host__ __device__ inline std::uint64_t slice_descriptor(std::uint32_t slice, int kk) {
  return encode_wgmma_descriptor(k_major_tile_descriptor(Swizzle::B128, slice + 32u * kk, 128));
}

// One slice: four m64nNk16 wgmmas, K 0..15, 16..31, 32..47, 48..63, for this warpgroup's 64 rows of A (a_slice) and
// all N rows of B (b_slice). Issued, committed as one group, not waited for.
template <int N, typename Input>
__device__ inline void mma_slice(float (&acc)[N / 2], std::uint32_t a_slice, std::uint32_t b_slice) {
  wgmma_fence();  // the accumulator registers were written (zeroed, or by the last group) outside wgmma
#pragma unroll
  for (int kk = 0; kk < kSliceK / 16; ++kk) {
    wgmma_m64nNk16<N, Input>(acc, slice_descriptor(a_slice, kk), slice_descriptor(b_slice, kk), true);
  }
  wgmma_commit_group();
}
// [/doc:descriptor]

// [doc:row_blocks]
// mma_slice for a warpgroup that holds RowBlocks accumulators of 64 rows each (1: the four wgmmas of mma_slice; 3:
// chapter 08's taller tile), on the slices whose first K step's descriptors (slice_descriptor(slice, 0)) are `a_first`
// and `b_first`: A's rows r * 64 .. r * 64 + 63 of the slice (8 KB further each: 64 rows of 128 bytes) times the same
// B, into acc[r]. Input is 16-bit (m64nNk16, fp32 D) or 8-bit (m64nNk32: fp32 D for fp8, s32 for s8 and u8); either
// way a slice is four K steps of 32 bytes. Each K step is 32 bytes on (tc::advance_wgmma_descriptor), so a loop over a
// ring encodes each operand's descriptor once and advances it by adds instead of encoding four a slice (chapter 08's
// slice loop). The K steps are the outer loop, so each accumulator still sees K in order; committed as one group, not
// waited for. Preconditions: as mma_slice, and as advance_wgmma_descriptor. Source: PTX ISA, "wgmma.mma_async",
// "Matrix Descriptor Format".
template <int RowBlocks, int N, typename Input>
__device__ inline void mma_slice_row_blocks(wgmma_accumulator_t<Input> (&acc)[RowBlocks][N / 2],
                                            std::uint64_t a_first, std::uint64_t b_first) {
  constexpr std::uint32_t kRowBlockBytes = 64u * kSliceBytes;  // 64 rows of one slice
  wgmma_fence();  // as mma_slice
#pragma unroll
  for (int kk = 0; kk < kSliceBytes / 32; ++kk) {
#pragma unroll
    for (int r = 0; r < RowBlocks; ++r) {
      const std::uint64_t a = advance_wgmma_descriptor(a_first, r * kRowBlockBytes + 32u * kk);
      const std::uint64_t b = advance_wgmma_descriptor(b_first, 32u * kk);
      if constexpr (sizeof(Input) == 1)
        wgmma_m64nNk32<N, Input>(acc[r], a, b, true);
      else
        wgmma_m64nNk16<N, Input>(acc[r], a, b, true);
    }
  }
  wgmma_commit_group();
}
// [/doc:row_blocks]

// The 1024-byte aligned start of the dynamic shared memory, whose base is only 16-byte aligned: a kernel asks for
// 1024 bytes of slack and rounds up, so that every slice starts on a 128B-swizzle atom.
__device__ inline unsigned char* aligned_smem(unsigned char* raw) {
  const std::uint32_t address = static_cast<std::uint32_t>(__cvta_generic_to_shared(raw));
  return raw + ((1024u - address % 1024u) % 1024u);
}

// The tensor map of a K-major operand (rows of K contiguous elements, `ld` apart) read in boxes of `box_rows` rows x
// one slice (kSliceElements<Input>), written to shared memory in the 128-byte swizzle. Elements past the edges read
// as zero. 8-bit inputs are mapped as bytes (TMA copies them; only wgmma reads them as fp8 or integers).
template <typename Input>
CUtensorMap k_major_map(const Input* base, int rows, int k, int ld, int box_rows) {
  constexpr bool k16 = std::is_same_v<Input, __half> || std::is_same_v<Input, __nv_bfloat16>;
  constexpr bool k8 = std::is_same_v<Input, __nv_fp8_e4m3> || std::is_same_v<Input, __nv_fp8_e5m2> ||
                      std::is_same_v<Input, std::int8_t> || std::is_same_v<Input, std::uint8_t>;
  static_assert(k16 || k8, "wgmma's 16-bit and 8-bit inputs");
  const CUtensorMapDataType type = std::is_same_v<Input, __half>          ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                   : std::is_same_v<Input, __nv_bfloat16> ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                                                          : CU_TENSOR_MAP_DATA_TYPE_UINT8;
  return make_tma_2d({base, int(sizeof(Input)), std::uint64_t(k), std::uint64_t(rows),
                      std::uint64_t(ld) * sizeof(Input), kSliceElements<Input>, box_rows, Swizzle::B128},
                     type);
}

}  // namespace tc
