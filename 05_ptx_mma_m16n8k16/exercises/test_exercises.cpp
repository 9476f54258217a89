// Chapter 05's graded exercises (README, "Workshop mode"), all host-checked. Each test compares the learner's
// formula with sample entries read off the PTX ISA's fragment figures (section 9.7.14.5.8) and checks that the 32
// lanes cover the tile exactly once, so it is independent of the chapter's own formulas.
#if TC_EXERCISE_SOLUTIONS
#include "exercises/solutions.hpp"
#else
#include "exercises/ex1_b_fragment.hpp"
#include "exercises/ex2_c_fragment.hpp"
#endif

#include "tc_test/catch.hpp"
#include "tc_test/exercise.hpp"

#include <vector>

namespace {

struct Sample {
  int lane, i, row, col;
};

// Every (lane, i) lands inside a rows x cols tile, and no element is held twice: 32 x 4 slots, 128 elements.
template <typename F>
void check_covers_once(F coord, int rows, int cols) {
  std::vector<int> hits(rows * cols, 0);
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < 4; ++i) {
      const tc::Coord c = coord(lane, i);
      INFO("lane " << lane << " element " << i << " -> (" << c.row << ", " << c.col << ")");
      REQUIRE((c.row >= 0 && c.row < rows && c.col >= 0 && c.col < cols));
      ++hits[c.row * cols + c.col];
    }
  for (int h : hits) REQUIRE(h == 1);
}

template <typename F>
void check_samples(F coord, const std::vector<Sample>& samples) {
  for (const Sample& s : samples) {
    const tc::Coord c = coord(s.lane, s.i);
    INFO("lane " << s.lane << " element " << s.i << ": expected (" << s.row << ", " << s.col << "), got (" << c.row
                 << ", " << c.col << ")");
    REQUIRE((c.row == s.row && c.col == s.col));
  }
}

}  // namespace

TEST_CASE("exercise 05.1: the B fragment's lane formula", "[exercise]") {
  tc::exercise::grade([] {
    // From the ISA's figure for B (K x N): lane 0 holds k 0, 1, 8, 9 of column 0; lane 1 k 2, 3, 10, 11; lane 4
    // starts column 1; lane 31 holds k 6, 7, 14, 15 of column 7.
    check_samples(ex05_1::b_coord, {{0, 0, 0, 0}, {0, 1, 1, 0}, {0, 2, 8, 0}, {0, 3, 9, 0}, {1, 0, 2, 0},
                                    {1, 3, 11, 0}, {4, 0, 0, 1}, {6, 1, 5, 1}, {13, 2, 10, 3}, {31, 0, 6, 7},
                                    {31, 3, 15, 7}});
    check_covers_once(ex05_1::b_coord, 16, 8);
  });
}

TEST_CASE("exercise 05.2: the accumulator fragment's lane formula", "[exercise]") {
  tc::exercise::grade([] {
    // From the ISA's figure for C/D (M x N): lane 0 holds (0, 0), (0, 1), (8, 0), (8, 1); lane 1 columns 2, 3;
    // lane 4 starts row 1; lane 31 holds row 7 and 15, columns 6, 7.
    check_samples(ex05_2::c_coord, {{0, 0, 0, 0}, {0, 1, 0, 1}, {0, 2, 8, 0}, {0, 3, 8, 1}, {1, 0, 0, 2},
                                    {3, 1, 0, 7}, {4, 0, 1, 0}, {13, 2, 11, 2}, {31, 0, 7, 6}, {31, 3, 15, 7}});
    check_covers_once(ex05_2::c_coord, 16, 8);
  });
}
