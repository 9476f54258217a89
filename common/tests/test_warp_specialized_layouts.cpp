// Chapter 08's building blocks on the host: who loads which part of B in a cluster (tc/layouts/cluster.hpp), the
// ring across a cluster (tc::simulate_cluster_ring, with the release to peers removed as the mutant it must catch),
// and the epilogue's staging chunk and stmatrix map (tc/layouts/epilogue.hpp): a bijection, conflict-free stores,
// and stmatrix.trans putting every accumulator register exactly where tc::wgmma_m64nNk16_d_coord says it belongs.
#include "tc/layouts/cluster.hpp"
#include "tc/layouts/epilogue.hpp"
#include "tc/layouts/mbarrier_ring.hpp"
#include "tc/layouts/smem_banks.hpp"
#include "tc/layouts/wgmma.hpp"
#include "tc_test/catch.hpp"

#include <set>
#include <vector>

TEST_CASE("cluster: the blocks' parts of B cover it once, and every M tile has one block", "[cluster]") {
  for (int size : {1, 2, 4}) {
    CHECK(tc::cluster_multicast_mask(size) == (1u << size) - 1u);
    std::vector<int> rows(256, 0);
    for (int rank = 0; rank < size; ++rank)
      for (int r = 0; r < 256 / size; ++r) ++rows[tc::cluster_b_part_first_row(rank, 256, size) + r];
    for (int r = 0; r < 256; ++r) CHECK(rows[r] == 1);
    for (int tiles_m : {1, 2, 7, 32, 33}) {
      std::vector<int> hits(tiles_m, 0);
      int over = 0;  // blocks past the edge (loads zero-filled, stores clipped)
      for (int row = 0; row < tc::cluster_tile_rows(tiles_m, size); ++row)
        for (int rank = 0; rank < size; ++rank) {
          const int t = tc::cluster_tile_m(row, rank, size);
          t < tiles_m ? ++hits[t] : ++over;
        }
      for (int h : hits) CHECK(h == 1);
      CHECK(over < size);
    }
  }
  CHECK(tc::cluster_empty_arrivals(2, 2) == 4);
  CHECK(tc::cluster_full_bytes(128 * 128, 256 * 128) == 49152);  // chapter 08's stage: A box + all of B
}

TEST_CASE("cluster ring: the kernel's protocol never overwrites a stage a peer still reads", "[cluster][ring]") {
  for (int size : {1, 2})
    for (int stages : {1, 2, 4})
      for (unsigned seed = 0; seed < 40; ++seed)
        CHECK(tc::simulate_cluster_ring(stages, 2, size, 37, seed, tc::cluster_empty_arrivals(2, size), true));
}

TEST_CASE("cluster ring: releasing only the own block's stage is caught (the public bug this guards)",
          "[cluster][ring]") {
  // Each block's "empty" barrier then counts its own consumers only: a producer multicasts into the peer's stage
  // while the peer's consumers may still read it. Some interleaving must show it.
  int caught = 0;
  for (unsigned seed = 0; seed < 200; ++seed) caught += !tc::simulate_cluster_ring(2, 2, 2, 37, seed, 2, false);
  CHECK(caught > 0);
}

template <int OutBytes>
void check_chunk_is_a_bijection() {
  using E = tc::EpilogueChunk<OutBytes>;
  std::set<std::uint32_t> offsets;
  for (int row = 0; row < E::kRows; ++row)
    for (int col = 0; col < E::kCols; ++col) {
      const std::uint32_t o = tc::epilogue_offset<OutBytes>(row, col);
      CHECK(o % OutBytes == 0);
      CHECK(o + OutBytes <= std::uint32_t(E::kBytes));
      offsets.insert(o);
    }
  CHECK(offsets.size() == std::size_t(E::kRows * E::kCols));
}

TEST_CASE("epilogue chunk: every element of C has its own bytes, for fp32 and bf16", "[epilogue]") {
  check_chunk_is_a_bijection<4>();
  check_chunk_is_a_bijection<2>();
  // The swizzle is what TMA undoes: within a box, column c's line is swizzle_128B of the unswizzled line.
  CHECK(tc::epilogue_offset<4>(0, 1) == 128u + 16u);   // column 1: chunk 0 lands in chunk 1
  CHECK(tc::epilogue_offset<4>(32, 0) == 4096u);       // rows 32..63: the second box
  CHECK(tc::epilogue_offset<2>(8, 2) == 2u * 128u + (1u ^ 2u) * 16u);
}

TEST_CASE("epilogue chunk: a warp's fp32 store of one accumulator register hits 32 banks once", "[epilogue]") {
  // Register i of warp w's lanes: tc::wgmma_m64nNk16_d_coord, columns taken within one 32-column chunk. Without the
  // swizzle the four columns' lines start on the same bank: 4-way conflicts.
  for (int w = 0; w < 4; ++w)
    for (int i = 0; i < 16; ++i) {
      std::vector<tc::SmemAccess> swizzled, plain;
      for (int lane = 0; lane < 32; ++lane) {
        const tc::Coord c = tc::wgmma_m64nNk16_d_coord(w, lane, i);
        swizzled.push_back({lane, tc::epilogue_offset<4>(c.row, c.col), 4});
        plain.push_back({lane, std::int64_t(c.col) * 256 + c.row * 4, 4});  // column-major, 64 rows, no swizzle
      }
      CHECK(tc::phase_cost(swizzled).conflicts() == 0);
      CHECK(tc::phase_cost(plain).conflicts() == 3);
    }
}

TEST_CASE("stmatrix.x4.trans stores every bf16 accumulator register where the accumulator map puts it",
          "[epilogue][stmatrix]") {
  // Compose: register `reg` half `half` of lane l holds accumulator stmatrix_accumulator_index(j0, reg, half); the
  // instruction stores it at (stored row, position) of matrix reg, whose row address lane 8 reg + stored row passes.
  int checked = 0;
  for (int w = 0; w < 4; ++w)
    for (int j0 = 0; j0 < tc::EpilogueChunk<2>::kCols / 8; j0 += 2)
      for (int lane = 0; lane < 32; ++lane)
        for (int reg = 0; reg < 4; ++reg)
          for (int half = 0; half < 2; ++half) {
            const int i = tc::stmatrix_accumulator_index(j0, reg, half);
            const tc::StmatrixSlot s = tc::stmatrix_x4_trans_slot(lane, reg, half);
            const tc::Coord start = tc::stmatrix_row_start(w, j0, 8 * s.matrix + s.stored_row);
            const tc::Coord stored{start.row + s.position, start.col};
            CHECK(stored == tc::wgmma_m64nNk16_d_coord(w, lane, i));
            ++checked;
          }
  CHECK(checked == 4 * 4 * 32 * 4 * 2);  // every register of the 64 x 64 chunk, once
  // Each row address starts a 16-byte run of 8 consecutive rows: the chunk's swizzle keeps 16-byte chunks whole.
  for (int w = 0; w < 4; ++w)
    for (int lane = 0; lane < 32; ++lane) {
      const tc::Coord start = tc::stmatrix_row_start(w, 0, lane);
      CHECK(tc::epilogue_offset<2>(start.row, start.col) % 16 == 0);
      CHECK(tc::epilogue_offset<2>(start.row + 7, start.col) == tc::epilogue_offset<2>(start.row, start.col) + 14);
    }
}

TEST_CASE("stmatrix.x4.trans: each matrix's eight row addresses hit distinct banks", "[epilogue][stmatrix]") {
  for (int w = 0; w < 4; ++w)
    for (int j0 = 0; j0 < 8; j0 += 2)
      for (int matrix = 0; matrix < 4; ++matrix) {
        std::vector<tc::SmemAccess> rows;
        for (int r = 0; r < 8; ++r) {
          const tc::Coord s = tc::stmatrix_row_start(w, j0, 8 * matrix + r);
          rows.push_back({8 * matrix + r, tc::epilogue_offset<2>(s.row, s.col), 16});
        }
        CHECK(tc::phase_cost(rows).conflicts() == 0);
      }
}
