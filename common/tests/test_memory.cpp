// Host tests of tc/memory.hpp: byte counts that cannot overflow silently, and the one-line refusal.
#include "tc/exit_codes.hpp"
#include "tc/main.hpp"
#include "tc/memory.hpp"
#include "tc_test/catch.hpp"

#include <cstdint>
#include <limits>
#include <string>

TEST_CASE("checked_bytes and checked_sum count bytes and refuse to wrap past 2^64", "[memory]") {
  CHECK(tc::checked_bytes(8192ull * 8192, 8) == 536870912ull);
  CHECK(tc::checked_bytes(0, 8) == 0);
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  CHECK(tc::checked_bytes(kMax, 1) == kMax);
  // (2^31 - 1)^2 elements of 8 bytes: 2^65 bytes, which a plain multiplication would wrap to a small number.
  const std::uint64_t elements = 2147483647ull * 2147483647ull;
  CHECK_THROWS_AS(tc::checked_bytes(elements, 8), tc::TooLargeError);
  CHECK(tc::checked_sum({1, 2, 3}) == 6);
  CHECK(tc::checked_sum({kMax, 0}) == kMax);
  CHECK_THROWS_AS(tc::checked_sum({kMax, 1}), tc::TooLargeError);
  const tc::MemoryNeed sum = tc::MemoryNeed{1, 2} + tc::MemoryNeed{10, 20};
  CHECK(sum.host_bytes == 11);
  CHECK(sum.device_bytes == 22);
}

TEST_CASE("format_bytes writes three significant figures in decimal units", "[memory]") {
  CHECK(tc::format_bytes(512) == "512 bytes");
  CHECK(tc::format_bytes(1500) == "1.5 kB");
  CHECK(tc::format_bytes(2147483648ull) == "2.15 GB");
  CHECK(tc::format_bytes(400000000000ull) == "400 GB");
}

TEST_CASE("memory_problem names both figures in one line, and nothing when the problem fits", "[memory]") {
  const tc::MemoryNeed need{300'000'000'000ull, 200'000'000'000ull};
  CHECK_FALSE(tc::memory_problem("x", {1000, 1000}, 1000, 1000));
  const auto both = tc::memory_problem("02_wmma_tiled_gemm at 100000x100000x100000 f16", need, 120'000'000'000ull,
                                       140'000'000'000ull);
  REQUIRE(both);
  CHECK(*both == "02_wmma_tiled_gemm at 100000x100000x100000 f16 needs 300 GB of host memory and 200 GB of GPU "
                 "memory; 120 GB and 140 GB are free (neither fits)");
  CHECK(both->find('\n') == std::string::npos);
  CHECK(tc::memory_problem("x", need, 400'000'000'000ull, 1)->find("GPU memory is short") != std::string::npos);
  CHECK(tc::memory_problem("x", need, 1, 400'000'000'000ull)->find("host memory is short") != std::string::npos);
}

TEST_CASE("run_main turns TooLargeError into one line and exit code 6", "[memory]") {
  CHECK(tc::kExitTooLarge == 6);
  CHECK(tc::run_main([]() -> int { throw tc::TooLargeError("does not fit"); }) == tc::kExitTooLarge);
}

TEST_CASE("available_host_bytes reads a figure from this machine", "[memory]") {
  CHECK(tc::available_host_bytes() > 0);
}
