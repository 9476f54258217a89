// tc::MutationSite: the places in the kernels where a test may plant a bug (tc/mutation_point.cuh says how). Its own
// header so that the tests' bugs (tc_test/planted_bugs.cuh) and the hook can both include it.
#pragma once

namespace tc {

enum class MutationSite : int {
  ABox,          // the index of the A box a producer loads within a tile (tc::a_box_row)
  KSlice,        // the K slice a producer loads (chapter 07's B, chapter 10's steps 2 and 5); context: the slices
  PromotedSum,   // a slice's fp8 sum as a promoting consumer adds it to fp32 (chapter 09, step 3); context: the slice
  BScale,        // B's scale of a slice as the block-scaled consumer applies it (chapter 09, step 4); context: the
                 // slice, the first column of the consumer's scale block
  AScaleRow,     // the row of the tile whose A scale a block-scaled consumer reads (chapter 09, step 4)
  SplitSlices,   // split-K: how many slices one block of a split covers (chapter 10, step 3); context: its rank, the
                 // splits
  SplitPartial,  // split-K: the rank whose partial a reduction adds, in rank order (chapter 10, step 3)
  FixupPartial,  // stream-K: a later cluster's partial as the tile's owner adds it (chapter 10, step 4); context: how
                 // many clusters after the owner it is
  Group,         // grouped GEMM: the group whose weights a tile multiplies (chapter 10, step 6); context: the groups
  Rescale,       // attention: the factor 2^(m - m') that rescales O and the row sum when a row's max grows (chapter 11)
  CausalDiagonal,  // attention: the key index the causal mask compares with a row's diagonal (chapter 11)
  KvHead,        // attention: the KV head a query head reads (GQA, chapter 11); context: the KV heads
};

}  // namespace tc
