#include "tc/timer.hpp"
#include "tc_test/catch.hpp"

TEST_CASE("summarize gives median, min and max", "[timer]") {
  const tc::TimingStats odd = tc::summarize({3.0f, 1.0f, 2.0f});
  CHECK(odd.median_ms == 2.0);
  CHECK(odd.min_ms == 1.0);
  CHECK(odd.max_ms == 3.0);
  CHECK(odd.repeats == 3);
  CHECK(tc::summarize({4.0f, 1.0f, 2.0f, 3.0f}).median_ms == 2.5);
  CHECK_THROWS_AS(tc::summarize({}), std::invalid_argument);
}

TEST_CASE("GEMM FLOP counting and TFLOP/s", "[timer]") {
  CHECK(tc::gemm_flops(16, 16, 16) == 8192.0);
  CHECK(tc::tflops(tc::gemm_flops(4096, 4096, 4096), 1.0) == Approx(137.438953472));
  CHECK(tc::tflops(1.0, 0.0) == 0.0);
}

TEST_CASE("benchmark rejects bad counts before touching the GPU", "[timer]") {
  CHECK_THROWS_AS(tc::benchmark([] {}, -1, 10), std::invalid_argument);
  CHECK_THROWS_AS(tc::benchmark([] {}, 0, 0), std::invalid_argument);
  CHECK_THROWS_AS(tc::rest_gpu(-1), std::invalid_argument);
}
