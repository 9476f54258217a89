#include "tc/reference.hpp"
#include "tc_test/catch.hpp"

#include <cstdint>
#include <vector>

// One hand-computed case, stored four ways. With
//   A = [1 2 3; 4 5 6] (2 x 3), B = [7 8; 9 10; 11 12] (3 x 2), C = [1 2; 3 4], alpha = 2, beta = -1:
//   A * B = [58 64; 139 154], so D = 2 * A * B - C = [115 126; 275 304].
// Each transpose stores op(A) = A and op(B) = B differently; every combination must give the same D.
namespace {
struct Stored {
  std::vector<double> values;
  int ld;
};
// A (2 x 3) as stored for op(A) = N (column-major 2 x 3, ld 4: two padding rows) or T (A^T, column-major 3 x 2).
Stored stored_a(tc::Op op) {
  const double pad = -1000;  // padding must never be read
  if (op == tc::Op::N) return {{1, 4, pad, pad, 2, 5, pad, pad, 3, 6, pad, pad}, 4};
  return {{1, 2, 3, 4, 5, 6}, 3};
}
Stored stored_b(tc::Op op) {
  if (op == tc::Op::N) return {{7, 9, 11, 8, 10, 12}, 3};
  return {{7, 8, 9, 10, 11, 12}, 2};
}
}  // namespace

TEST_CASE("reference_gemm matches the hand-computed NN, NT, TN and TT cases", "[reference]") {
  const tc::Op op_a = GENERATE(tc::Op::N, tc::Op::T);
  const tc::Op op_b = GENERATE(tc::Op::N, tc::Op::T);
  INFO("op(A) = " << tc::op_name(op_a) << ", op(B) = " << tc::op_name(op_b));
  const Stored a = stored_a(op_a);
  const Stored b = stored_b(op_b);
  const std::vector<double> c = {1, 3, 2, 4};
  std::vector<double> d(4), mag(4);
  tc::reference_gemm(op_a, op_b, 2, 2, 3, 2.0, a.values.data(), a.ld, b.values.data(), b.ld, -1.0, c.data(), 2,
                     d.data(), 2, mag.data());
  CHECK(d == std::vector<double>{115, 275, 126, 304});
  // mag = |alpha| * |A| * |B| + |beta| * |C|; every input is positive, so it is 2 * A * B + C.
  CHECK(mag == std::vector<double>{117, 281, 130, 312});
}

TEST_CASE("reference_gemm does not read C when beta is 0", "[reference]") {
  const Stored a = stored_a(tc::Op::N);
  const Stored b = stored_b(tc::Op::N);
  std::vector<double> d(4);
  tc::reference_gemm<double, double, double>(tc::Op::N, tc::Op::N, 2, 2, 3, 1.0, a.values.data(), a.ld,
                                             b.values.data(), b.ld, 0.0, nullptr, 2, d.data(), 2);
  CHECK(d == std::vector<double>{58, 139, 64, 154});
}

TEST_CASE("reference_gemm is exact for full-range int8", "[reference]") {
  const int k = 1024;
  std::vector<std::int8_t> a(k, -128), b(k, -128);
  double d = 0;
  tc::reference_gemm<std::int8_t, std::int8_t, std::int32_t>(tc::Op::T, tc::Op::N, 1, 1, k, 1.0, a.data(), k,
                                                             b.data(), k, 0.0, nullptr, 1, &d, 1);
  CHECK(d == 16384.0 * k);  // (-128)^2 * 1024 = 2^24: beyond fp32's exact integers, exact in double
}

TEST_CASE("GEMM arguments are validated as cuBLAS does", "[reference]") {
  CHECK_NOTHROW(tc::validate_gemm_arguments(tc::Op::N, tc::Op::N, 0, 0, 0, 1, 1, 1, 1));
  CHECK(tc::test::thrown_message<std::invalid_argument>(
            [] { tc::validate_gemm_arguments(tc::Op::N, tc::Op::N, 16, 8, 4, 8, 4, 16, 16); }) ==
        "lda = 8 is too small: it must be >= max(1, m) = 16 for op(A) = N (column-major storage)");
  CHECK(tc::test::thrown_message<std::invalid_argument>(
            [] { tc::validate_gemm_arguments(tc::Op::T, tc::Op::N, 16, 8, 4, 3, 4, 16, 16); })
            .find("lda = 3 is too small: it must be >= max(1, k) = 4 for op(A) = T") == 0);
  CHECK(tc::test::thrown_message<std::invalid_argument>(
            [] { tc::validate_gemm_arguments(tc::Op::N, tc::Op::T, 16, 8, 4, 16, 4, 16, 16); })
            .find("ldb = 4 is too small: it must be >= max(1, n) = 8 for op(B) = T") == 0);
  CHECK(tc::test::thrown_message<std::invalid_argument>(
            [] { tc::validate_gemm_arguments(tc::Op::N, tc::Op::N, 16, 8, 4, 16, 4, 15, 16); })
            .find("ldc = 15 is too small") == 0);
  CHECK(tc::test::thrown_message<std::invalid_argument>(
            [] { tc::validate_gemm_arguments(tc::Op::N, tc::Op::N, 16, 8, 4, 16, 4, 16, 8); })
            .find("ldd = 8 is too small: it must be >= max(1, m) = 16 for D") == 0);
  CHECK_THROWS_AS(tc::validate_gemm_arguments(tc::Op::N, tc::Op::N, -1, 8, 4, 16, 4, 16, 16), std::invalid_argument);
}

TEST_CASE("op_of maps a storage layout tag to its cuBLAS op", "[reference]") {
  STATIC_REQUIRE(tc::op_of<tc::ColMajor>() == tc::Op::N);
  STATIC_REQUIRE(tc::op_of<tc::RowMajor>() == tc::Op::T);
}
