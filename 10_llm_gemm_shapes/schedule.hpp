// Chapter 10 -- the schedule table: every way the chapter runs a shape, as a value a step chooses.
//
// A step does not launch kernels itself, and no step calls another's launcher: each says which schedule runs a shape
// (its choose(m, n, k, sms), a Schedule), and one dispatch (schedules.cuh: launch_schedule) launches it. Step 2 picks
// the narrow tile up to 256 tokens and chapter 08's past them; step 4 stream-K past them; step 5 whichever the model
// estimates fastest, over the token counts kSchedules gives each schedule. The table below names every schedule once:
// the label the sweep and the model print, the file whose kernel runs it, and where step 5 weighs it.
// Host only, pure.
#pragma once

#include <climits>
#include <string>

// [doc:schedule_table]
enum class ScheduleKind { Chapter08, StreamK, Narrow, Wide, Pair };

// One schedule, as a step chooses it. block_n: the narrow or pair tile's token tile (wgmma's N); splits: the narrow
// tile's split-K; half_n: the narrow tile is half of Step2SmallM::block_n(tokens) wide (step 5 weighs both); width:
// the wide tile's weights (wgmma's N). The other fields are 0 or 1 where a kind has no such choice.
struct Schedule {
  ScheduleKind kind = ScheduleKind::Chapter08;
  int block_n = 0, splits = 1;
  bool half_n = false;
  int width = 0;

  // The label tools/schedule_sweep.cu's columns use: "ch08", "stream-K", "BN", "BN s2", "BN/2 s4", "wide", "pair".
  std::string label() const;
};

// The token counts at which step 5's model weighs the narrow and pair tiles (four columns of 256), and the fewest and
// most it weighs the wide tile at: at 32 or fewer tokens, most of its 64 token rows would not exist; up to 2048, since
// its 128-token tiles can still make about one wave where chapter 08's 256-token tiles leave SMs idle (Qwen2.5-7B's O
// at 1042 tokens: 126 tiles of 128 tokens by 256 weights, cuBLAS's tile there). Past 1024 tokens the pair tile was
// never the fastest schedule, and the wide tile at that one shape of both suites
// (docs/results/10_wide_pair_past_1024_h200.txt). Stream-K starts past one column of narrow tiles (256 tokens:
// Step2SmallM::kMaxTokens), where step 4 runs it.
inline constexpr int kNarrowMaxTokens = 1024;
inline constexpr int kWideMinTokens = 33;
inline constexpr int kWideMaxTokens = 2048;
inline constexpr int kStreamKMinTokens = 257;

struct ScheduleRow {
  ScheduleKind kind;
  const char* label;   // Schedule::label()'s stem
  const char* kernel;  // the file whose kernel runs it
  int min_tokens, max_tokens;  // where step 5 weighs it (estimate_schedules)
};

inline constexpr ScheduleRow kSchedules[] = {
    {ScheduleKind::Chapter08, "ch08", "step1_chapter08.cuh", 1, INT_MAX},
    {ScheduleKind::StreamK, "stream-K", "step4_stream_k.cuh", kStreamKMinTokens, INT_MAX},
    {ScheduleKind::Narrow, "BN", "step2_small_m.cuh (split-K: step3_split_k.cuh)", 1, kNarrowMaxTokens},
    {ScheduleKind::Wide, "wide", "wide_tile.cuh", kWideMinTokens, kWideMaxTokens},
    {ScheduleKind::Pair, "pair", "pair_tile.cuh", kWideMinTokens, kNarrowMaxTokens},
};

// The table's row for a kind: the rows are in ScheduleKind's order.
constexpr const ScheduleRow& schedule_row(ScheduleKind kind) { return kSchedules[int(kind)]; }

// Whether step 5 weighs `kind` at n tokens.
constexpr bool weighed_at(ScheduleKind kind, int n) {
  return n >= schedule_row(kind).min_tokens && n <= schedule_row(kind).max_tokens;
}
// [/doc:schedule_table]

static_assert(schedule_row(ScheduleKind::Chapter08).kind == ScheduleKind::Chapter08 &&
                  schedule_row(ScheduleKind::StreamK).kind == ScheduleKind::StreamK &&
                  schedule_row(ScheduleKind::Narrow).kind == ScheduleKind::Narrow &&
                  schedule_row(ScheduleKind::Wide).kind == ScheduleKind::Wide &&
                  schedule_row(ScheduleKind::Pair).kind == ScheduleKind::Pair,
              "kSchedules lists the kinds in ScheduleKind's order: schedule_row indexes it by kind");

inline std::string Schedule::label() const {
  if (kind != ScheduleKind::Narrow) return schedule_row(kind).label;
  return std::string(half_n ? "BN/2" : "BN") + (splits > 1 ? " s" + std::to_string(splits) : std::string());
}
