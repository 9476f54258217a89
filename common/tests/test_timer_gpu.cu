// GPU test of tc::benchmark (tc/timer.hpp): the events bracket each launch's own work. A kernel that spins for a
// known time on the GPU's nanosecond clock is the measuring stick: a timer that read the host's launch time, summed
// the repeats or bracketed an empty stream would report something else.
#include "tc/check.hpp"
#include "tc/timer.hpp"
#include "tc_test/catch.hpp"

#include <cstdint>

namespace {
constexpr int kAnyGpu = 75;  // CUDA 13 supports nothing older, and %globaltimer exists on every SM

// One thread spins until the GPU's global timer has advanced `ns` nanoseconds.
// Source: PTX ISA, "Special Registers: %globaltimer" (a 64-bit nanosecond timer).
__global__ void spin_kernel(std::uint64_t ns) {
  std::uint64_t start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}
}  // namespace

TEST_CASE("benchmark times each launch's own work on the GPU", "[gpu][timer]") {
  tc::test::require_gpu(kAnyGpu);
  for (double want_ms : {0.5, 2.0}) {
    const tc::TimingStats s = tc::benchmark(
        [&] {
          spin_kernel<<<1, 1>>>(std::uint64_t(want_ms * 1e6));
          TC_CHECK(cudaGetLastError());
        },
        2, 5);
    INFO("a " << want_ms << " ms spin: median " << s.median_ms << " ms, min " << s.min_ms << ", max " << s.max_ms);
    CHECK(s.repeats == 5);
    CHECK(s.min_ms <= s.median_ms);
    CHECK(s.median_ms <= s.max_ms);
    // The spin itself, plus at most the launch's own cost and the timer's granularity (a few microseconds).
    CHECK(s.min_ms >= 0.98 * want_ms);  // the global timer ticks in up to a microsecond
    CHECK(s.median_ms < want_ms + 0.05);
  }
}
