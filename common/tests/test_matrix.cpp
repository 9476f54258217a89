#include "tc/layouts/tags.hpp"
#include "tc/matrix.hpp"
#include "tc_test/catch.hpp"

#include <algorithm>
#include <type_traits>

TEST_CASE("Layout tags map (row, col, ld) to offsets", "[layout]") {
  STATIC_REQUIRE(tc::RowMajor::offset(2, 3, 10) == 23);
  STATIC_REQUIRE(tc::ColMajor::offset(2, 3, 10) == 32);
  STATIC_REQUIRE(tc::RowMajor::min_ld(4, 7) == 7);
  STATIC_REQUIRE(tc::ColMajor::min_ld(4, 7) == 4);
  STATIC_REQUIRE(tc::ColMajor::min_ld(0, 7) == 1);  // cuBLAS: ld >= max(1, rows)
  STATIC_REQUIRE(tc::ColMajor::storage_size(4, 7, 5) == 35);
  // Lines: the contiguous runs a 2-D copy moves. A 4 x 7 column-major matrix is 7 columns of 4; row-major, 4 rows of 7.
  STATIC_REQUIRE(tc::ColMajor::line_length(4, 7) == 4);
  STATIC_REQUIRE(tc::ColMajor::line_count(4, 7) == 7);
  STATIC_REQUIRE(tc::RowMajor::line_length(4, 7) == 7);
  STATIC_REQUIRE(tc::RowMajor::line_count(4, 7) == 4);
  for (int rows : {0, 1, 4})
    for (int cols : {0, 1, 7}) {
      CHECK(tc::ColMajor::min_ld(rows, cols) == std::max(1, tc::ColMajor::line_length(rows, cols)));
      CHECK(tc::RowMajor::min_ld(rows, cols) == std::max(1, tc::RowMajor::line_length(rows, cols)));
    }
}

TEST_CASE("A row-major M x N array is the column-major N x M transpose", "[layout]") {
  STATIC_REQUIRE(std::is_same_v<tc::transposed_t<tc::RowMajor>, tc::ColMajor>);
  STATIC_REQUIRE(std::is_same_v<tc::transposed_t<tc::ColMajor>, tc::RowMajor>);
  for (int r = 0; r < 5; ++r)
    for (int c = 0; c < 3; ++c) CHECK(tc::RowMajor::offset(r, c, 4) == tc::ColMajor::offset(c, r, 4));
}

TEST_CASE("HostMatrix honours its leading dimension", "[matrix]") {
  tc::HostMatrix<float, tc::ColMajor> m(3, 2, 5);
  CHECK(m.storage().size() == 10);
  m(2, 1) = 7.0f;
  CHECK(m.data()[1 * 5 + 2] == 7.0f);
  tc::HostMatrix<float, tc::RowMajor> r(3, 2, 4);
  r(2, 1) = 5.0f;
  CHECK(r.data()[2 * 4 + 1] == 5.0f);
}

TEST_CASE("HostMatrix rejects a too-small ld and out-of-range access", "[matrix]") {
  const std::string msg = tc::test::thrown_message<std::invalid_argument>(
      [] { tc::HostMatrix<float, tc::ColMajor> m(16, 4, 8); });
  CHECK(msg == "HostMatrix: ld 8 is below the minimum 16 for a 16 x 4 column-major matrix");
  CHECK_THROWS_AS((tc::HostMatrix<float, tc::RowMajor>(-1, 4)), std::invalid_argument);
  tc::HostMatrix<float, tc::RowMajor> m(2, 2);
  CHECK_THROWS_AS(m.at(2, 0), std::out_of_range);
  CHECK_THROWS_AS(m.at(0, -1), std::out_of_range);
}
