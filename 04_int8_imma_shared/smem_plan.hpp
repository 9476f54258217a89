// Chapter 04's shared-memory plan on the host: what an ImmaTile's stage costs in bank wavefronts, from the tile's own
// address functions (ImmaTile::smem_offset, copy_chunk, warp_origin) fed to the bank calculator
// (tc/layouts/smem_banks.hpp), and the overflow bound of int32 accumulation.
//
// Two kinds of shared access per stage, counted over every warp of one block:
// - fragment loads: each warp's FragsM matrix_a and FragsN matrix_b loads per 16-deep K step, each one LDSM.16.M88.2
//   of 16 lines x 16 bytes (tc::wmma_8bit_fragment_rows);
// - copies: each thread's kCopies 16-byte cp.async writes, counted as 16-byte vector accesses (8 lanes per phase).
// ncu's l1tex__data_bank_conflicts_pipe_lsu_mem_shared counters measure the same (docs/results/04_*_ncu_*.txt).
// Units: bytes, wavefronts. Source: as tc/layouts/smem_banks.hpp; the overflow bound is arithmetic on the int32
// range, within which integer accumulation is exact in any order.
#pragma once

#include "imma_shared_gemm.cuh"

#include "tc/layouts/smem_banks.hpp"

#include <array>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

// The row addresses of the matrix_a (or matrix_b, with `b`) fragment that warp `warp` loads for fragment index f at
// K step l, relative to the stage's start.
template <typename Tile>
std::vector<std::int64_t> fragment_rows(int warp, bool b, int f, int l) {
  const tc::Coord origin = Tile::warp_origin(warp);
  const int line = b ? Tile::BlockM + origin.col + 16 * f : origin.row + 16 * f;
  return tc::wmma_8bit_fragment_rows(Tile::smem_offset(line, l), Tile::kLd);
}

// Warp `warp`'s copy i: the 32 lanes' 16-byte destinations in the stage.
template <typename Tile>
tc::AccessCost copy_cost(int warp, int i) {
  std::array<std::int64_t, tc::kWarpSize> address{};
  for (int lane = 0; lane < tc::kWarpSize; ++lane) {
    const tc::Coord c = Tile::copy_chunk(warp * tc::kWarpSize + lane, i);
    address[lane] = Tile::smem_offset(c.row, c.col * Tile::kChunk);
  }
  return tc::vector_access_cost(address, Tile::kChunk);
}

// [doc:stage_cost]
// One stage of one block: every fragment load and every copy, summed.
struct StageCost {
  int fragment_loads = 0, load_wavefronts = 0, load_conflicts = 0;
  int copies = 0, copy_wavefronts = 0, copy_conflicts = 0;
};

template <typename Tile>
StageCost stage_cost() {
  StageCost cost;
  const int warps = Tile::kThreads / tc::kWarpSize;
  for (int warp = 0; warp < warps; ++warp) {
    for (int l = 0; l < Tile::BlockK; l += 16)
      for (int b = 0; b < 2; ++b)
        for (int f = 0; f < (b ? Tile::FragsN : Tile::FragsM); ++f) {
          const tc::AccessCost c = tc::ldmatrix_cost(fragment_rows<Tile>(warp, b, f, l));
          ++cost.fragment_loads;
          cost.load_wavefronts += c.wavefronts;
          cost.load_conflicts += c.conflicts;
        }
    for (int i = 0; i < Tile::kCopies; ++i) {
      const tc::AccessCost c = copy_cost<Tile>(warp, i);
      ++cost.copies;
      cost.copy_wavefronts += c.wavefronts;
      cost.copy_conflicts += c.conflicts;
    }
  }
  return cost;
}
// [/doc:stage_cost]

// [doc:overflow]
// The largest K for which every int32 partial sum of K products stays in range when every input is at the extreme
// that maximizes |a * b|: (-128) * (-128) = 2^14 for s8 (the largest product, positive, so the bound is
// (2^31 - 1) / 2^14), 255 * 255 for u8. alpha * sum + beta * c must fit as well, so with |alpha| > 1 or beta != 0 the
// bound shrinks accordingly.
template <typename In>
constexpr std::int64_t max_exact_k() {
  constexpr std::int64_t lo = std::numeric_limits<In>::min(), hi = std::numeric_limits<In>::max();
  constexpr std::int64_t biggest_product = lo * lo > hi * hi ? lo * lo : hi * hi;
  return std::numeric_limits<std::int32_t>::max() / biggest_product;
}
static_assert(max_exact_k<std::int8_t>() == 131071, "s8: (2^31 - 1) / 2^14");
static_assert(max_exact_k<std::uint8_t>() == 33025, "u8: (2^31 - 1) / 65025");
// [/doc:overflow]

// The plan as a figure: the Stages stages side by side, each a column of BlockM lines of A over BlockN lines of B,
// every line BlockK bytes of data followed by Skew bytes of padding, drawn to scale horizontally (3 px per byte) and
// at 1 px per line vertically; labels give the sizes in bytes.
template <typename Tile>
std::string smem_plan_svg() {
  constexpr int kPxPerByte = 3, kTop = 60, kLeft = 20, kGap = 40;
  const int stage_w = Tile::kLd * kPxPerByte, data_w = Tile::BlockK * kPxPerByte;
  const int width = kLeft + Tile::Stages * (stage_w + kGap), height = kTop + Tile::kLines + 60;
  std::string out;
  char buf[768];
  std::snprintf(buf, sizeof buf,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                "font-family=\"monospace\" font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
                "<text x=\"%d\" y=\"20\" font-size=\"13\">shared memory of one block: %d stages x %d bytes = %d bytes"
                "</text>\n<text x=\"%d\" y=\"38\">each line: %d bytes of K + %d bytes of skew = ld %d bytes</text>\n",
                width, height, width, height, kLeft, Tile::Stages, Tile::kStageBytes, Tile::kSmemBytes, kLeft,
                Tile::BlockK, Tile::Skew, Tile::kLd);
  out += buf;
  for (int st = 0; st < Tile::Stages; ++st) {
    const int x = kLeft + st * (stage_w + kGap);
    // A's rows (blue) over B's columns (green); the skew strip of every line in grey.
    std::snprintf(buf, sizeof buf,
                  "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"hsl(210,70%%,80%%)\" stroke=\"#555\"/>"
                  "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"hsl(120,50%%,78%%)\" stroke=\"#555\"/>"
                  "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#ccc\" stroke=\"#555\"/>\n"
                  "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">A: %d rows</text>"
                  "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">B: %d cols</text>"
                  "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">stage %d: %d B</text>\n",
                  x, kTop, data_w, Tile::BlockM, x, kTop + Tile::BlockM, data_w, Tile::BlockN, x + data_w, kTop,
                  stage_w - data_w, Tile::kLines, x + data_w / 2, kTop + Tile::BlockM / 2 + 4, Tile::BlockM,
                  x + data_w / 2, kTop + Tile::BlockM + Tile::BlockN / 2 + 4, Tile::BlockN, x + stage_w / 2,
                  kTop + Tile::kLines + 18, st, Tile::kStageBytes);
    out += buf;
  }
  std::snprintf(buf, sizeof buf,
                "<text x=\"%d\" y=\"%d\">one line = %d bytes = %d 16-byte chunks (one cp.async each) + skew; a "
                "fragment reads 16 lines x 16 bytes</text>\n</svg>\n",
                kLeft, kTop + Tile::kLines + 44, Tile::BlockK, Tile::kChunksPerLine);
  out += buf;
  return out;
}
