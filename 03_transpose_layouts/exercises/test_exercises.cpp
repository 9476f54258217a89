// Chapter 03's graded exercises (README, "Workshop mode"), both host-checked: the layout tags by a small integer GEMM
// read through them against one written with the transposes spelled out, and the sector count against cases
// counted by hand.
#if TC_EXERCISE_SOLUTIONS
#include "exercises/solutions.hpp"
#else
#include "exercises/ex1_layout_tags.hpp"
#include "exercises/ex2_sectors.hpp"
#endif

#include "tc/reference.hpp"
#include "tc_test/catch.hpp"
#include "tc_test/exercise.hpp"

#include <cstddef>
#include <vector>

namespace {

// C = op(A) * op(B) on integers, m x n x k = 5 x 3 x 4, with padded leading dimensions so that a tag that ignores ld
// or swaps the roles of row and column reads the wrong element.
template <tc::Op TransA, tc::Op TransB>
void check_layouts() {
  using Tags = ex03_1::OperandLayouts<TransA, TransB>;
  const int m = 5, n = 3, k = 4;
  const int a_rows = TransA == tc::Op::N ? m : k, a_cols = TransA == tc::Op::N ? k : m;
  const int b_rows = TransB == tc::Op::N ? k : n, b_cols = TransB == tc::Op::N ? n : k;
  const int lda = a_rows + 2, ldb = b_rows + 3;
  std::vector<int> a(std::size_t(lda) * a_cols), b(std::size_t(ldb) * b_cols);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = int(i % 7) - 3;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = int(i % 5) - 2;
  auto stored_a = [&](int r, int c) { return a[std::size_t(c) * lda + r]; };  // column-major storage
  auto stored_b = [&](int r, int c) { return b[std::size_t(c) * ldb + r]; };
  const char* ops[] = {"N", "T"};
  INFO("transa " << ops[TransA == tc::Op::T] << ", transb " << ops[TransB == tc::Op::T]);
  // Element (r, c) of op(X) through the learner's tag, or a failure if the tag points outside X's storage.
  auto read = [](const std::vector<int>& x, std::size_t offset, const char* name, int r, int c) {
    INFO("op(" << name << ")(" << r << ", " << c << ") read at offset " << offset << " of " << x.size());
    REQUIRE(offset < x.size());
    return x[offset];
  };
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      int want = 0, got = 0;
      for (int l = 0; l < k; ++l) {
        want += (TransA == tc::Op::N ? stored_a(i, l) : stored_a(l, i)) *
                (TransB == tc::Op::N ? stored_b(l, j) : stored_b(j, l));
        got += read(a, Tags::A::offset(i, l, lda), "A", i, l) * read(b, Tags::B::offset(l, j, ldb), "B", l, j);
      }
      INFO("C(" << i << ", " << j << ")");
      REQUIRE(got == want);
    }
}

// The learner's count for lane l reading `bytes` bytes at (line(l), element(l)); a stub throws here, to grade().
int sectors(int (*line)(int), int (*element)(int), int bytes, int ld, int element_bytes) {
  WarpRequest r;
  for (int lane = 0; lane < 32; ++lane) r[lane] = {line(lane), element(lane), bytes};
  return ex03_2::sectors_touched(r, ld, element_bytes);
}

}  // namespace

TEST_CASE("exercise 03.1: the layout tags of op(A) and op(B)", "[exercise]") {
  tc::exercise::grade([] {
    check_layouts<tc::Op::N, tc::Op::N>();
    check_layouts<tc::Op::T, tc::Op::N>();  // A^T * B
    check_layouts<tc::Op::N, tc::Op::T>();
    check_layouts<tc::Op::T, tc::Op::T>();
  });
}

TEST_CASE("exercise 03.2: the sectors a warp's load touches", "[exercise]") {
  tc::exercise::grade([] {
    // 32 lanes x 4 contiguous bytes of one line: 128 bytes, 4 sectors.
    const int contiguous = sectors([](int) { return 0; }, [](int l) { return 2 * l; }, 4, 4096, 2);
    REQUIRE(contiguous == 4);
    // The same shifted by one f16 element: bytes 2..129 straddle 5 sectors.
    const int shifted = sectors([](int) { return 0; }, [](int l) { return 2 * l + 1; }, 4, 4096, 2);
    REQUIRE(shifted == 5);
    // One lane per line, lines 128 bytes apart: 32 sectors for 128 bytes.
    const int strided = sectors([](int l) { return l; }, [](int) { return 0; }, 4, 64, 2);
    REQUIRE(strided == 32);
    // Every lane reads the same 4 bytes: 1 sector.
    const int same = sectors([](int) { return 3; }, [](int) { return 8; }, 4, 64, 2);
    REQUIRE(same == 1);
    // Lanes 4g..4g+3 read the first 16 bytes of line g, lines 32 bytes apart (ld 16 f16): one sector per line, 8.
    const int fragment = sectors([](int l) { return l / 4; }, [](int l) { return 2 * (l % 4); }, 4, 16, 2);
    REQUIRE(fragment == 8);
  });
}
