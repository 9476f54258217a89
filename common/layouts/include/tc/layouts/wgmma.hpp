// Hopper's shared-memory layouts for wgmma and TMA: the swizzle modes as address functions, the wgmma matrix
// descriptor, and the m64nNk16 accumulator (D) fragment. Host and device code; no GPU needed to evaluate them.
//
// Swizzle (PTX ISA, "Tensor copy swizzling modes"; "Shared Memory Matrix Layout" of wgmma): within a repeating atom,
// the 16-byte chunk index (address bits 4..) is XORed with the 128-byte row index (address bits 7..):
//   mode   bits XORed             atom (repeat)   span (bytes a row may hold)
//   none   -                      -               -
//   32B    bit 4    ^= bit 7      256 bytes       32
//   64B    bits 4-5 ^= bits 7-8   512 bytes       64
//   128B   bits 4-6 ^= bits 7-9   1024 bytes      128
// TMA writes a box in this pattern and wgmma reads its operands through it; both compute it from the absolute shared
// address, so a tile whose base is not aligned to the atom sees a shifted pattern (the descriptor's base offset).
//
// The descriptor (PTX ISA, "Matrix Descriptor Format", wgmma): a 64-bit word
//   bits  0-13  start address >> 4          bits 32-45  stride byte offset >> 4
//   bits 16-29  leading byte offset >> 4    bits 49-51  base offset
//   bits 62-63  swizzle mode: 0 none, 1 128B, 2 64B, 3 32B
// What the two offsets mean depends on which dimension of the operand is contiguous (its major-ness, wgmma's
// imm-trans-a/-b: 0 K-major, 1 MN-major), in a swizzled mode of span S bytes (128 for 128B):
//   K-major   rows of S bytes along K, one per m (or n); SBO: between 8-row groups (8 * S for a TMA box); LBO unused
//             (the ISA assumes 1; we write 16 bytes, field value 1).
//   MN-major  rows of S bytes along M (or N), one per k; SBO: between groups of 8 k (8 * S for a TMA box); LBO:
//             between panels of S bytes of M (or N), e.g. 64 16-bit columns of V and the next 64 of them.
// wgmma_operand_address states both as the address of each element; the host tests hold it to TMA's placement, and
// a GPU probe to the hardware (common/tests/test_wgmma_forms.cu).
//
// The accumulator (PTX ISA, "Register Fragments and Shared Memory Matrix Layouts", wgmma .m64nNk16 D): warp w of the
// warpgroup (0..3) owns rows 16w..16w+15; within them a lane holds what it would hold of an m16n8 C tile
// (tc/layouts/mma_m16n8k16.hpp), once per 8 columns: register i (0 <= i < N/2) of lane l is
//   row = 16w + l/4 + 8 * ((i/2) % 2)      col = 8 * (i/4) + 2 * (l%4) + i % 2.
// A from registers (the RS form, 16-bit types): warp w holds rows 16w..16w+15 of the 64 x 16 A slice as mma.sync's
// m16n8k16 A fragment (tc/layouts/mma_m16n8k16.hpp): element i (0..7, packed two to a 32-bit register) of lane l is
//   row = 16w + l/4 + 8 * ((i/2) % 2)      col = 2 * (l%4) + i % 2 + 8 * (i/4).
// Compare D: columns 16j..16j+15 of D are registers 8j..8j+7, at the same rows and columns as A's elements 0..7.
// So an fp32 accumulator, converted to 16 bits in register order, is the A operand of the next wgmma along K
// (wgmma_accumulator_is_next_a, tested on the host; FlashAttention's P = softmax(S) feeds P V this way).
// Units: bytes for addresses and offsets; rows and columns of the tile. Preconditions: as each function states.
#pragma once

#include "tc/layouts/lane_ids.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace tc {

// The swizzle modes, valued as TMA's CU_TENSOR_MAP_SWIZZLE_* enumerators count them (0 none, 1 32B, 2 64B, 3 128B).
enum class Swizzle : int { None = 0, B32 = 1, B64 = 2, B128 = 3 };

// Bytes a swizzled row spans (32, 64, 128; 0 for none): TMA's limit on the box's inner dimension in bytes.
__host__ __device__ constexpr int swizzle_span_bytes(Swizzle s) { return s == Swizzle::None ? 0 : 16 << int(s); }
// Bytes after which the pattern repeats (256, 512, 1024; 16 for none, one chunk): a tile base aligned to it reads
// the pattern from its start.
__host__ __device__ constexpr int swizzle_repeat_bytes(Swizzle s) { return s == Swizzle::None ? 16 : 128 << int(s); }

// The shared-memory byte address that logical byte address `address` lands at under mode s: the 16-byte chunk bits
// XORed with the row bits above them. A bijection on every aligned atom; applying it twice gives `address` back.
__host__ __device__ constexpr std::uint32_t swizzle_address(Swizzle s, std::uint32_t address) {
  const std::uint32_t bits = std::uint32_t(int(s));  // how many chunk bits are XORed: 0..3
  const std::uint32_t mask = ((1u << bits) - 1u) << 4;
  return address ^ ((address >> 3) & mask);
}

// The descriptor's base offset for an operand whose swizzle pattern starts at byte address `pattern_start` (ISA:
// (address >> 7) & 7 when it is not aligned to the repeat; 0 when it is).
__host__ __device__ constexpr int wgmma_base_offset(Swizzle s, std::uint32_t pattern_start) {
  return pattern_start % std::uint32_t(swizzle_repeat_bytes(s)) == 0 ? 0 : int((pattern_start >> 7) & 7u);
}

// The swizzle field of the descriptor, which counts the modes in the other order (1 is 128B).
__host__ __device__ constexpr std::uint64_t wgmma_swizzle_bits(Swizzle s) {
  return s == Swizzle::None ? 0 : std::uint64_t(4 - int(s));
}

// The descriptor's fields, in bytes (start address, leading and stride byte offsets) as the ISA defines them.
struct WgmmaDescriptorFields {
  std::uint32_t start_address = 0;       // shared-memory byte address of the operand, a multiple of 16, < 2^18
  std::uint32_t leading_byte_offset = 0;  // a multiple of 16, < 2^18
  std::uint32_t stride_byte_offset = 0;   // a multiple of 16, < 2^18
  int base_offset = 0;                    // 0..7
  Swizzle swizzle = Swizzle::None;
};

// The 64-bit descriptor of `f`. Precondition: f is valid (wgmma_descriptor_problem finds nothing); out-of-range
// fields are truncated to their bit width.
__host__ __device__ constexpr std::uint64_t encode_wgmma_descriptor(const WgmmaDescriptorFields& f) {
  constexpr std::uint64_t k14 = (1u << 14) - 1u;
  return (std::uint64_t(f.start_address >> 4) & k14) | ((std::uint64_t(f.leading_byte_offset >> 4) & k14) << 16) |
         ((std::uint64_t(f.stride_byte_offset >> 4) & k14) << 32) | (std::uint64_t(f.base_offset & 7) << 49) |
         (wgmma_swizzle_bits(f.swizzle) << 62);
}

// The descriptor of the same kind of tile `byte_offset` bytes further on: the start address field (bits 0..13) holds
// the address >> 4, so moving the tile is an add, with no carry out of the field while the address stays below 2^18
// (all of shared memory). A loop over a ring of stages encodes one descriptor per operand before it starts and steps
// it with adds (chapter 08's slice loop). Preconditions: d valid, byte_offset a multiple of 16, the new address below
// 2^18. Equal to encoding the moved fields: a host test checks it over all of shared memory.
__host__ __device__ constexpr std::uint64_t advance_wgmma_descriptor(std::uint64_t d, std::uint32_t byte_offset) {
  return d + (byte_offset >> 4);
}

// The fields of descriptor `d` (the inverse of encode_wgmma_descriptor on valid fields).
__host__ __device__ constexpr WgmmaDescriptorFields decode_wgmma_descriptor(std::uint64_t d) {
  constexpr std::uint64_t k14 = (1u << 14) - 1u;
  const int bits = int(d >> 62);
  WgmmaDescriptorFields f;
  f.start_address = std::uint32_t(d & k14) << 4;
  f.leading_byte_offset = std::uint32_t((d >> 16) & k14) << 4;
  f.stride_byte_offset = std::uint32_t((d >> 32) & k14) << 4;
  f.base_offset = int((d >> 49) & 7u);
  f.swizzle = bits == 0 ? Swizzle::None : Swizzle(4 - bits);
  return f;
}

// Why a tile at `tile_address` cannot be an operand of chapters 07 and 08, as one line, or nullptr when it can. Their
// descriptors carry base offset 0, so a swizzled tile must start on its pattern's repeat; one that does not would need
// the base offset, which these kernels do not set: their stage buffers are aligned by construction (WgmmaTile), and
// this rule is what the tests hold every stage offset to.
__host__ __device__ constexpr const char* wgmma_tile_base_problem(Swizzle s, std::uint32_t tile_address) {
  if (tile_address % 16 != 0) return "a wgmma operand tile must start on a 16-byte boundary";
  if (tile_address % std::uint32_t(swizzle_repeat_bytes(s)) != 0)
    return "a swizzled wgmma operand tile must start on its swizzle repeat (1024 bytes for 128B): a base offset is "
           "not supported";
  return nullptr;
}

// The descriptor of a K-major tile of `rows` rows of `row_bytes` bytes each, stored as TMA (or chapter 07's step 1)
// writes it under mode s: rows of swizzle_span_bytes(s), 8-row groups `8 * row_bytes` apart. This is the only form
// chapters 07 and 08 use, and the tile base must be aligned to the swizzle repeat (base offset 0).
__host__ __device__ constexpr WgmmaDescriptorFields k_major_tile_descriptor(Swizzle s, std::uint32_t tile_address,
                                                                            int row_bytes) {
  return {tile_address, 16, std::uint32_t(8 * row_bytes), wgmma_base_offset(s, tile_address), s};
}

// Which dimension of a shared-memory operand is contiguous, valued as wgmma's imm-trans-a / imm-trans-b: K-major
// (consecutive k side by side: a row-major A, a column-major B) or MN-major (consecutive m of A, or n of B: a
// column-major A, a row-major B such as attention's V, [keys, head_dim] with head_dim contiguous). 8-bit wgmma
// takes K-major operands only.
enum class WgmmaMajor : int { K = 0, MN = 1 };

// The descriptor of an MN-major tile as TMA writes it under a swizzled mode s: panels of swizzle_span_bytes(s)
// along M or N (64 16-bit elements for 128B), each holding one row of that span per k, rows consecutive (so groups
// of 8 k are 8 * span bytes apart), and panels `panel_bytes` apart (a box of `k` rows each, or a whole panel of the
// tile: k rows * span). A 16-bit wgmma with N > 64 reads N / 64 panels. Preconditions: s swizzled, panel_bytes a
// multiple of the swizzle repeat; the tile base aligned to it (base offset 0), as wgmma_tile_base_problem says.
__host__ __device__ constexpr WgmmaDescriptorFields mn_major_tile_descriptor(Swizzle s, std::uint32_t tile_address,
                                                                             std::uint32_t panel_bytes) {
  return {tile_address, panel_bytes, std::uint32_t(8 * swizzle_span_bytes(s)), wgmma_base_offset(s, tile_address), s};
}

// The shared-memory byte address from which wgmma reads element (mn, k) of an operand described by `f`: mn is the
// row of A (m) or the column of B (n), k runs along K; element_bytes is 2 (f16, bf16) or 1 (8-bit). The ISA's
// canonical layouts (PTX ISA, "Canonical Layouts", the swizzled rows), in bytes, with S = swizzle_span_bytes:
//   K-major   start + (mn % 8) * S + (mn / 8) * SBO + k * element_bytes
//   MN-major  start + (mn % (S / e)) * e + (mn / (S / e)) * LBO + (k % 8) * S + (k / 8) * SBO      (e: element_bytes)
// then swizzled (swizzle_address). Preconditions: f.swizzle is not None, f.base_offset is 0; for K-major,
// k * element_bytes < S (one instruction's K, 32 bytes, always is). Units: bytes; mn and k count elements.
__host__ __device__ constexpr std::uint32_t wgmma_operand_address(const WgmmaDescriptorFields& f, WgmmaMajor major,
                                                                 int element_bytes, int mn, int k) {
  const std::uint32_t span = std::uint32_t(swizzle_span_bytes(f.swizzle));
  const std::uint32_t e = std::uint32_t(element_bytes), i = std::uint32_t(mn), j = std::uint32_t(k);
  const std::uint32_t logical =
      major == WgmmaMajor::K
          ? f.start_address + (i % 8) * span + (i / 8) * f.stride_byte_offset + j * e
          : f.start_address + (i % (span / e)) * e + (i / (span / e)) * f.leading_byte_offset + (j % 8) * span +
                (j / 8) * f.stride_byte_offset;
  return swizzle_address(f.swizzle, logical);
}

// The m64nNk16 accumulator: warp `warp` (0..3) of the warpgroup, lane `lane`, f32 register i (0 <= i < N/2).
__host__ __device__ constexpr Coord wgmma_m64nNk16_d_coord(int warp, int lane, int i) {
  return {16 * warp + lane / 4 + 8 * ((i / 2) % 2), 8 * (i / 4) + 2 * (lane % 4) + i % 2};
}

// The m64nNk16 A operand in registers (the RS form; f16 or bf16): warp `warp` (0..3), lane `lane`, element i (0..7;
// elements 2j and 2j + 1 share 32-bit register j, the lower in bits 0..15), as (row 0..63, k 0..15).
__host__ __device__ constexpr Coord wgmma_m64nNk16_a_coord(int warp, int lane, int i) {
  return {16 * warp + lane / 4 + 8 * ((i / 2) % 2), 2 * (lane % 4) + i % 2 + 8 * (i / 4)};
}

// True when, for every lane, D's registers 8j..8j+7 of an m64nNk16 accumulator sit at the coordinates of the A
// operand's elements 0..7, shifted 16j columns: so converting D to 16 bits in register order makes the A fragment
// of a wgmma whose K is D's N (the register reuse FlashAttention-3 builds P V on). Checked for N up to 256.
constexpr bool wgmma_accumulator_is_next_a() {
  for (int warp = 0; warp < 4; ++warp) {
    for (int lane = 0; lane < kWarpSize; ++lane) {
      for (int i = 0; i < 128; ++i) {
        const Coord d = wgmma_m64nNk16_d_coord(warp, lane, i), a = wgmma_m64nNk16_a_coord(warp, lane, i % 8);
        if (d.row != a.row || d.col != a.col + 16 * (i / 8)) return false;
      }
    }
  }
  return true;
}

}  // namespace tc
