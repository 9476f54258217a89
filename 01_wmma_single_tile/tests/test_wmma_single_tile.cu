// Chapter 01 tests: the single-tile kernel against the CPU reference, the launcher's argument checks, and the
// fragment probe's invariants.
#include "chapter_config.hpp"  // tc::chapter::kMinSm, from tc_add_chapter in the top-level CMakeLists.txt
#include "wmma_single_tile.cuh"

#include "tc/compare.hpp"
#include "tc/device_buffer.hpp"
#include "tc/matrix.hpp"
#include "tc/random.hpp"
#include "tc/reference.hpp"
#include "tc/wmma_probe.cuh"
#include "tc_test/catch.hpp"

#include <cstdint>
#include <type_traits>
#include <vector>

namespace {

// Runs one tile with the given layouts and padded leading dimensions; returns the comparison with the CPU reference.
template <typename Shape, typename LayoutA, typename LayoutB>
tc::CompareResult run_tile(std::uint64_t seed, tc::Fill fill, int pad) {
  tc::HostMatrix<__half, LayoutA> a(Shape::M, Shape::K, LayoutA::min_ld(Shape::M, Shape::K) + pad);
  tc::HostMatrix<__half, LayoutB> b(Shape::K, Shape::N, LayoutB::min_ld(Shape::K, Shape::N) + pad);
  tc::HostMatrix<float, tc::ColMajor> c(Shape::M, Shape::N, Shape::M + pad);
  tc::fill_random(a, seed, fill);
  tc::fill_random(b, seed + 1, fill);
  tc::fill_random(c, seed + 2, fill);
  // The CPU reference takes column-major storage with transposes: a row-major A is op(A) = T of its storage.
  std::vector<double> ref(c.storage().size()), mag(c.storage().size());
  tc::reference_gemm(tc::op_of<LayoutA>(), tc::op_of<LayoutB>(), Shape::M, Shape::N, Shape::K, 1.0, a.data(), a.ld(),
                     b.data(), b.ld(), 1.0, c.data(), c.ld(), ref.data(), c.ld(), mag.data());

  tc::DeviceBuffer<__half> d_a(a.storage()), d_b(b.storage());
  tc::DeviceBuffer<float> d_c(c.storage()), d_d(c.storage().size());
  d_d.poison();
  launch_wmma_single_tile<Shape, LayoutA, LayoutB>(Shape::M, Shape::N, Shape::K, d_a.data(), a.ld(), d_b.data(),
                                                   b.ld(), d_c.data(), c.ld(), d_d.data(), c.ld());
  const std::vector<float> got = d_d.download();
  const tc::Tolerance tol =
      fill == tc::Fill::Integer ? tc::Tolerance::exact() : tc::Tolerance::fp32_accumulate<float>();
  return tc::compare(Shape::M, Shape::N, Shape::K, got.data(), c.ld(), ref.data(), mag.data(), c.ld(), tol);
}
}  // namespace

TEMPLATE_TEST_CASE("WMMA tile matches the CPU reference on integer-valued inputs, exactly", "[gpu][wmma]",
                   Shape16x16x16, Shape32x8x16, Shape8x32x16) {
  tc::test::require_gpu(tc::chapter::kMinSm);
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const tc::CompareResult r = run_tile<TestType, tc::ColMajor, tc::ColMajor>(seed, tc::Fill::Integer, 0);
    INFO(TestType::name() << " seed " << seed << ": " << r.summary());
    CHECK(r.passed);
  }
}

TEMPLATE_TEST_CASE("WMMA tile matches the CPU reference on random reals within the K-scaled bound", "[gpu][wmma]",
                   Shape16x16x16, Shape32x8x16, Shape8x32x16) {
  tc::test::require_gpu(tc::chapter::kMinSm);
  for (std::uint64_t seed : {10u, 11u, 12u}) {
    const tc::CompareResult r = run_tile<TestType, tc::ColMajor, tc::ColMajor>(seed, tc::Fill::Real, 0);
    INFO(TestType::name() << " seed " << seed << ": " << r.summary());
    CHECK(r.passed);
  }
}

TEMPLATE_TEST_CASE("WMMA tile honours row-major fragments and padded leading dimensions", "[gpu][wmma]",
                   Shape16x16x16, Shape32x8x16, Shape8x32x16) {
  tc::test::require_gpu(tc::chapter::kMinSm);
  // 8 halves of padding keeps every ld a multiple of 16 bytes, as load_matrix_sync requires.
  const int pad = 8;
  const auto rr = run_tile<TestType, tc::RowMajor, tc::RowMajor>(21, tc::Fill::Integer, pad);
  const auto rc = run_tile<TestType, tc::RowMajor, tc::ColMajor>(22, tc::Fill::Integer, pad);
  const auto cr = run_tile<TestType, tc::ColMajor, tc::RowMajor>(23, tc::Fill::Integer, pad);
  INFO(rr.summary() << "\n" << rc.summary() << "\n" << cr.summary());
  CHECK(rr.passed);
  CHECK(rc.passed);
  CHECK(cr.passed);
}

TEST_CASE("launch_wmma_single_tile rejects a size that is not its tile", "[wmma]") {
  const std::string msg = tc::test::thrown_message<std::invalid_argument>([] {
    launch_wmma_single_tile<Shape32x8x16>(16, 16, 16, nullptr, 32, nullptr, 16, nullptr, 32, nullptr, 32);
  });
  CHECK(msg == "launch_wmma_single_tile: m x n x k = 16x16x16 is not the tile 32x8x16");
}

TEST_CASE("launch_wmma_single_tile rejects leading dimensions WMMA cannot load", "[wmma]") {
  // Aligned stand-in addresses: the checks run before anything is dereferenced or launched.
  alignas(32) static __half h[1];
  alignas(32) static float f[1];
  CHECK(tc::test::thrown_message<std::invalid_argument>(
            [] { launch_wmma_single_tile<Shape16x16x16>(16, 16, 16, h, 8, h, 16, f, 16, f, 16); }) ==
        "lda = 8 is too small: it must be >= max(1, m) = 16 for op(A) = N (column-major storage)");
  CHECK(tc::test::thrown_message<std::invalid_argument>(
            [] { launch_wmma_single_tile<Shape16x16x16>(16, 16, 16, h, 20, h, 16, f, 16, f, 16); }) ==
        "ld of A is 20 elements; load/store_matrix_sync needs a multiple of 8 (16 bytes)");
  CHECK(tc::test::thrown_message<std::invalid_argument>(
            [] { launch_wmma_single_tile<Shape16x16x16>(16, 16, 16, h, 16, h, 16, f, 18, f, 16); }) ==
        "ld of C is 18 elements; load/store_matrix_sync needs a multiple of 4 (16 bytes)");
}

TEST_CASE("launch_wmma_single_tile rejects pointers that are not 256-bit aligned", "[wmma]") {
  alignas(32) static __half h[32];
  alignas(32) static float f[8];
  CHECK(tc::test::thrown_message<std::invalid_argument>(
            [] { launch_wmma_single_tile<Shape16x16x16>(16, 16, 16, h + 8, 16, h, 16, f, 16, f, 16); }) ==
        "A must be 32-byte aligned for load/store_matrix_sync");
  CHECK(tc::test::thrown_message<std::invalid_argument>(
            [] { launch_wmma_single_tile<Shape16x16x16>(16, 16, 16, h, 16, h, 16, f, 16, f + 4, 16); }) ==
        "D must be 32-byte aligned for load/store_matrix_sync");
}

namespace {
// Every probed map must name only in-tile elements and hold every element at least once; and the hardware must
// give the same answer when asked twice.
template <typename Use, typename Shape, typename Layout>
tc::LaneMap probe_checked() {
  const tc::LaneMap map = tc::probe_wmma_fragment<Use, Shape, Layout>();
  using F = tc::ProbedFragment<Use, Shape, Layout>;
  INFO(F::name << " " << Shape::name() << " " << Layout::name);
  CHECK(map.all_slots_in_tile());
  CHECK(map.min_copies() >= 1);
  const tc::LaneMap again = tc::probe_wmma_fragment<Use, Shape, Layout>();
  bool same = true;
  for (int lane = 0; lane < tc::kWarpSize; ++lane)
    for (int i = 0; i < map.slots(); ++i) same = same && map.at(lane, i) == again.at(lane, i);
  CHECK(same);
  return map;
}
}  // namespace

TEMPLATE_TEST_CASE("probe: matrix_a/matrix_b fragments cover their tile, every slot in bounds, stable across runs",
                   "[gpu][probe]", Shape16x16x16, Shape32x8x16, Shape8x32x16) {
  tc::test::require_gpu(tc::chapter::kMinSm);
  using namespace nvcuda;
  probe_checked<wmma::matrix_a, TestType, tc::RowMajor>();
  probe_checked<wmma::matrix_a, TestType, tc::ColMajor>();
  probe_checked<wmma::matrix_b, TestType, tc::RowMajor>();
  probe_checked<wmma::matrix_b, TestType, tc::ColMajor>();
}

TEMPLATE_TEST_CASE("probe: accumulator fragments hold each element exactly once", "[gpu][probe]", Shape16x16x16,
                   Shape32x8x16, Shape8x32x16) {
  tc::test::require_gpu(tc::chapter::kMinSm);
  for (const tc::LaneMap& map : {probe_checked<nvcuda::wmma::accumulator, TestType, tc::RowMajor>(),
                                 probe_checked<nvcuda::wmma::accumulator, TestType, tc::ColMajor>()}) {
    CHECK(map.min_copies() == 1);
    CHECK(map.max_copies() == 1);
    CHECK(map.slots() * tc::kWarpSize == TestType::M * TestType::N);
  }
}
