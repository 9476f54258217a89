// Chapter 01's graded exercises (README, "Workshop mode"). 01.1 runs on the GPU: the learner's tile against the CPU
// reference, exactly, on integer-valued inputs, for column- and row-major A. 01.2 is host-checked against the
// Programming Guide's rules, case by case.
#if TC_EXERCISE_SOLUTIONS
#include "exercises/solutions.cuh"
#else
#include "exercises/ex1_load_mma_store.cuh"
#include "exercises/ex2_wmma_rules.hpp"
#endif

#include "chapter_config.hpp"  // tc::chapter::kMinSm

#include "tc/compare.hpp"
#include "tc/device_buffer.hpp"
#include "tc/matrix.hpp"
#include "tc/random.hpp"
#include "tc/reference.hpp"
#include "tc_test/catch.hpp"
#include "tc_test/exercise.hpp"

#include <cstdint>
#include <vector>

namespace {

template <typename LayoutA, typename LayoutB>
void check_tile(std::uint64_t seed) {
  constexpr int kTile = 16;
  tc::HostMatrix<__half, LayoutA> a(kTile, kTile, LayoutA::min_ld(kTile, kTile) + 8);  // padded: ld must be used
  tc::HostMatrix<__half, LayoutB> b(kTile, kTile, LayoutB::min_ld(kTile, kTile));
  tc::HostMatrix<float, tc::ColMajor> c(kTile, kTile, kTile + 4);
  tc::fill_random(a, seed, tc::Fill::Integer);
  tc::fill_random(b, seed + 1, tc::Fill::Integer);
  tc::fill_random(c, seed + 2, tc::Fill::Integer);
  std::vector<double> ref(c.storage().size()), mag(c.storage().size());
  tc::reference_gemm(tc::op_of<LayoutA>(), tc::op_of<LayoutB>(), kTile, kTile, kTile, 1.0, a.data(), a.ld(), b.data(),
                     b.ld(), 1.0, c.data(), c.ld(), ref.data(), c.ld(), mag.data());
  tc::DeviceBuffer<__half> d_a(a.storage()), d_b(b.storage());
  tc::DeviceBuffer<float> d_c(c.storage()), d_d(c.storage().size());
  d_d.poison();  // an unwritten D reads as NaN and fails
  ex01_1::launch_single_tile<LayoutA, LayoutB>(d_a.data(), a.ld(), d_b.data(), b.ld(), d_c.data(), c.ld(),
                                               d_d.data(), c.ld());
  const std::vector<float> got = d_d.download();
  const tc::CompareResult r =
      tc::compare(kTile, kTile, kTile, got.data(), c.ld(), ref.data(), mag.data(), c.ld(), tc::Tolerance::exact());
  INFO("A " << LayoutA::name << ", B " << LayoutB::name << ": " << r.summary() << "\n"
            << tc::exercise::where("01.1", "01_wmma_single_tile/exercises/ex1_load_mma_store.cuh",
                                   "01_wmma_single_tile"));
  REQUIRE(r.passed);
}

}  // namespace

TEST_CASE("exercise 01.1: load, mma and store one WMMA tile", "[exercise][gpu]") {
  tc::test::require_gpu(tc::chapter::kMinSm);
  check_tile<tc::ColMajor, tc::ColMajor>(1);
  check_tile<tc::RowMajor, tc::ColMajor>(2);
}

TEST_CASE("exercise 01.2: the WMMA pointer and leading-dimension rules", "[exercise]") {
  tc::exercise::grade([] {
    struct Case {
      std::uintptr_t address;
      int ld;
      std::size_t element_bytes;
      bool ok;
      const char* why;
    };
    const Case cases[] = {
        {0x1000, 16, 2, true, "aligned, 32 bytes per line"},
        {0x1020, 8, 2, true, "ld 8 halves = 16 bytes"},
        {0x1010, 16, 2, false, "pointer 16-byte but not 32-byte aligned"},
        {0x1002, 16, 2, false, "pointer 2-byte aligned"},
        {0x1000, 12, 2, false, "ld 12 halves = 24 bytes"},
        {0x1000, 4, 4, true, "ld 4 floats = 16 bytes"},
        {0x1000, 6, 4, false, "ld 6 floats = 24 bytes"},
        {0x1000, 16, 1, true, "ld 16 int8 = 16 bytes"},
        {0x1000, 8, 1, false, "ld 8 int8 = 8 bytes"},
        {0x1000, 2, 8, true, "ld 2 doubles = 16 bytes"},
        {0x1000, 3, 8, false, "ld 3 doubles = 24 bytes"},
    };
    for (const Case& c : cases) {
      const bool ok = ex01_2::wmma_operand_ok(c.address, c.ld, c.element_bytes);  // a stub throws here, to grade()
      INFO(c.why << ": expected " << (c.ok ? "legal" : "illegal"));
      REQUIRE(ok == c.ok);
    }
  });
}
