// The bugs the tests plant in the kernels' own code, to prove each exact or statistical check rejects a kernel that
// is wrong. A kernel marks the places a bug may sit with tc::mutation_point (tc/mutation_point.cuh), which only the
// test binaries compile with this header; a test switches one bug on for the launches inside a scope:
//   { const tc::test::PlantedBugScope plant(tc::test::PlantedBug::ABoxRepeated); launch(...); }
// Each bug changes one value at one site:
//   ABoxRepeated       ABox: box 1 of A is loaded from box 0's rows (rows kABoxRows.. of a tile get box 0's products)
//   MiddleSliceTwice   KSlice: the middle slice of K loads the next one's (one slice counted twice, one never)
//   PromotionSkipsGroup  PromotedSum and BScale: slice 1's sum is never added (its scale is 0)
//   BScaleWrongBlock   BScale: B's scale block (0, 1) is applied twice (slice 1, columns 0..127)
//   AScaleWrongRow     AScaleRow: every row takes its neighbour's A scale (row ^ 1)
//   SplitDropsLastChunk  SplitSlices: the last block of a split covers one slice fewer
//   SplitAddsPartialTwice  SplitPartial: the reduction adds rank 0's partial in place of rank 1's
//   FixupAddsPartialTwice  FixupPartial: the owner adds the first later cluster's partial twice
//   GroupOffByOne      Group: every group multiplies the next group's weights
//   RescaleSkipped     Rescale: O and the row sum are never rescaled when a row's max grows (attention)
//   CausalOffByOne     CausalDiagonal: each row also sees the key just past its diagonal (attention)
//   WrongKvHead        KvHead: every query head reads the next KV head (attention, GQA)
// The switch is a __device__ variable of the translation unit that includes this header (the test's), set before the
// launches and cleared after: kernels of that file read it at their mutation points.
// Preconditions: the scope on the host thread that launches; no two scopes at once. Errors: tc::CudaError.
#pragma once

#include "tc/check.hpp"
#include "tc/mutation_site.hpp"

#include <cuda_runtime_api.h>

namespace tc::test {

enum class PlantedBug : int {
  None,
  ABoxRepeated,
  MiddleSliceTwice,
  PromotionSkipsGroup,
  BScaleWrongBlock,
  AScaleWrongRow,
  SplitDropsLastChunk,
  SplitAddsPartialTwice,
  FixupAddsPartialTwice,
  GroupOffByOne,
  RescaleSkipped,
  CausalOffByOne,
  WrongKvHead,
};

namespace {
// The bug the next launches of this translation unit carry (internal linkage: each test file has its own).
__device__ PlantedBug g_planted_bug = PlantedBug::None;
}  // namespace

// Switches `bug` on for the launches in its lifetime (synchronously: the copy orders before them), off at its end.
class PlantedBugScope {
 public:
  explicit PlantedBugScope(PlantedBug bug) { set(bug); }
  ~PlantedBugScope() { set(PlantedBug::None); }
  PlantedBugScope(const PlantedBugScope&) = delete;
  PlantedBugScope& operator=(const PlantedBugScope&) = delete;

 private:
  static void set(PlantedBug bug) { TC_CHECK(cudaMemcpyToSymbol(g_planted_bug, &bug, sizeof bug)); }
};

}  // namespace tc::test

namespace tc::detail {

// What the switched-on bug makes of `value` at `site` (see the table above); `value` itself everywhere else.
template <typename T>
__device__ __forceinline__ T planted_value(MutationSite site, T value, int context, int context2) {
  using test::PlantedBug;
  const PlantedBug bug = test::g_planted_bug;
  if (bug == PlantedBug::None) return value;
  switch (bug) {
    case PlantedBug::ABoxRepeated:
      return site == MutationSite::ABox && value == T(1) ? T(0) : value;
    case PlantedBug::MiddleSliceTwice:
      return site == MutationSite::KSlice && value == T(context / 2) ? T(value + T(1)) : value;
    case PlantedBug::PromotionSkipsGroup:
      return (site == MutationSite::PromotedSum || site == MutationSite::BScale) && context == 1 ? T(0) : value;
    case PlantedBug::BScaleWrongBlock:
      return site == MutationSite::BScale && context == 1 && context2 < 128 ? T(value * T(2)) : value;
    case PlantedBug::AScaleWrongRow:
      return site == MutationSite::AScaleRow ? T(int(value) ^ 1) : value;
    case PlantedBug::SplitDropsLastChunk:
      return site == MutationSite::SplitSlices && context == context2 - 1 && value > T(0) ? T(value - T(1)) : value;
    case PlantedBug::SplitAddsPartialTwice:
      return site == MutationSite::SplitPartial && value == T(1) ? T(0) : value;
    case PlantedBug::FixupAddsPartialTwice:
      return site == MutationSite::FixupPartial && context == 1 ? T(value * T(2)) : value;
    case PlantedBug::GroupOffByOne:
      return site == MutationSite::Group ? T((int(value) + 1) % context) : value;
    case PlantedBug::RescaleSkipped:
      return site == MutationSite::Rescale ? T(1) : value;
    case PlantedBug::CausalOffByOne:
      return site == MutationSite::CausalDiagonal ? T(value - T(1)) : value;
    case PlantedBug::WrongKvHead:
      return site == MutationSite::KvHead ? T((int(value) + 1) % context) : value;
    default:
      return value;
  }
}

}  // namespace tc::detail
