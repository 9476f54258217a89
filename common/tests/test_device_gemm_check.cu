// Tests of tc/device_gemm_check.cuh, the checks made on the GPU. Host: the fill's generator is splitmix64 (its
// published first outputs), its values have tc/random.hpp's ranges and means, and the device memory the checks
// declare. GPU: the device fill equals the host function element for element; on the same operands the device
// references and comparison give tc::compare's verdict, counts, worst element and bounds, for a correct result and
// for planted errors (one element off, one NaN, a K column dropped), as the host path (tc/gemm_check.hpp) does, and
// tc::compare_on_device alone gives tc::compare's on the host's reference.
#include "tc/cublas_reference.hpp"
#include "tc/device_buffer.hpp"
#include "tc/device_gemm_check.cuh"
#include "tc/gemm_check.hpp"
#include "tc_test/catch.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <vector>

namespace {
constexpr int kAnyGpu = 75;  // CUDA 13 supports nothing older, and nothing here is sm-specific

// count elements of a device array, as host values.
template <typename T>
std::vector<T> download(const T* data, std::size_t count) {
  std::vector<T> host(count);
  TC_CHECK(cudaMemcpy(host.data(), data, count * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

// The fields a device comparison must share with tc::compare's on the same data. rms_error may differ in its last
// bits (another summation order); every other field is computed element by element, the same way.
void check_same(const tc::CompareResult& device, const tc::CompareResult& host) {
  INFO("device: " << device.summary() << "\nhost:   " << host.summary());
  CHECK(device.passed == host.passed);
  CHECK(device.checked == host.checked);
  CHECK(device.failures == host.failures);
  CHECK(device.worst_row == host.worst_row);
  CHECK(device.worst_col == host.worst_col);
  if (std::isnan(host.worst_got)) {
    CHECK(std::isnan(device.worst_got));
  } else {
    CHECK(device.worst_got == host.worst_got);
  }
  CHECK(device.worst_ref == Approx(host.worst_ref).epsilon(1e-12));
  CHECK(device.worst_bound == Approx(host.worst_bound).epsilon(1e-12));
  CHECK(device.largest_bound == Approx(host.largest_bound).epsilon(1e-12));
  if (std::isnan(host.rms_error)) {
    CHECK(std::isnan(device.rms_error));
  } else {
    CHECK(device.rms_error == Approx(host.rms_error).epsilon(1e-9));
  }
  CHECK((device.rms_bound < 0.0) == (host.rms_bound < 0.0));
  if (host.rms_bound >= 0.0) CHECK(device.rms_bound == Approx(host.rms_bound).epsilon(1e-9));
}
}  // namespace

TEST_CASE("hashed_bits is splitmix64: seed 0's first outputs are the published ones", "[device_check]") {
  // splitmix64 from state 0 (Vigna's splitmix64.c) gives 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f.
  constexpr std::uint64_t kGolden = 0x9e3779b97f4a7c15ull;
  CHECK(tc::splitmix64_mix(kGolden) == 0xe220a8397b1dcdafull);
  CHECK(tc::splitmix64_mix(2 * kGolden) == 0x6e789e6aa1b965f4ull);
  CHECK(tc::splitmix64_mix(3 * kGolden) == 0x06c45d188009454full);
  // A stream starts from the state splitmix64_mix(seed) and advances by kGolden per element.
  CHECK(tc::hashed_bits(7, 0) == tc::splitmix64_mix(tc::splitmix64_mix(7) + kGolden));
  CHECK(tc::hashed_bits(7, 41) == tc::splitmix64_mix(tc::splitmix64_mix(7) + 42 * kGolden));
  CHECK(tc::hashed_bits(7, 41) != tc::hashed_bits(8, 41));
}

TEST_CASE("hashed_value draws tc/random.hpp's distributions: reals from -1 up to 1, integers from -r to r, s8 and u8 "
          "in full",
          "[device_check]") {
  constexpr int kCount = 200000;
  double sum = 0.0, lo = 2.0, hi = -2.0;
  std::set<double> ones, s8, u8;
  for (int i = 0; i < kCount; ++i) {
    const double x = tc::hashed_value<float>(2026, i, 0);
    sum += x, lo = std::min(lo, x), hi = std::max(hi, x);
    ones.insert(tc::hashed_value<__nv_bfloat16>(2026, i, 1));
    s8.insert(tc::hashed_value<std::int8_t>(2026, i, 0));
    u8.insert(tc::hashed_value<std::uint8_t>(2026, i, 0));
  }
  CHECK(lo >= -1.0);
  CHECK(lo < -0.9999);
  CHECK(hi < 1.0);
  CHECK(hi > 0.9999);
  CHECK(std::fabs(sum / kCount) < 0.01);  // the mean of 200000 uniform draws: standard deviation 0.0013
  CHECK(ones == std::set<double>{-1.0, 0.0, 1.0});
  CHECK(s8.size() == 256);
  CHECK(*s8.begin() == -128.0);
  CHECK(*s8.rbegin() == 127.0);
  CHECK(u8.size() == 256);
  CHECK(*u8.begin() == 0.0);
  CHECK(*u8.rbegin() == 255.0);
  CHECK(tc::hashed_value<std::int32_t>(5, 3, 0) == tc::hashed_value<std::int8_t>(5, 3, 0));  // s32 C: as s8
  CHECK(tc::hashed_value<float>(5, 3, 4) == std::trunc(tc::hashed_value<float>(5, 3, 4)));
}

TEST_CASE("device_gemm_check_memory counts both sets, their references and one set's fp64 copies", "[device_check]") {
  const tc::GemmProblem p = tc::GemmProblem::tight(tc::Op::T, tc::Op::N, 1000, 10, 100, 1.0, 0.0);
  const std::uint64_t a = 100 * 1000 * 2, b = 100 * 10 * 2, c = 1000 * 10 * 2, ref = 1000 * 10 * 16;
  const tc::MemoryNeed need = tc::device_gemm_check_memory<__nv_bfloat16, __nv_bfloat16>(p);
  CHECK(need.host_bytes == 0);
  CHECK(need.device_bytes == 2 * (a + b + c + ref) + (100 * 1000 + 100 * 10) * 8);
  // beta != 0: an input C per set, and C widened too.
  const tc::GemmProblem q = tc::GemmProblem::tight(tc::Op::T, tc::Op::N, 1000, 10, 100, 1.0, 0.5);
  CHECK(tc::device_gemm_check_memory<__nv_bfloat16, __nv_bfloat16>(q).device_bytes ==
        2 * (a + b + 2 * c + ref) + (100 * 1000 + 100 * 10 + 1000 * 10) * 8);
}

TEST_CASE("fill_hashed on the GPU is hashed_value on the host, element for element", "[gpu][device_check]") {
  tc::test::require_gpu(kAnyGpu);
  constexpr std::size_t kCount = 100003;  // not a multiple of any block: the grid-stride loop's tail
  auto check_type = [&](auto zero, int integer_max) {
    using T = decltype(zero);
    tc::DeviceBuffer<T> d(kCount);
    tc::fill_hashed(d.data(), kCount, 99, integer_max);
    const std::vector<T> got = d.download();
    std::size_t mismatches = 0;
    for (std::size_t i = 0; i < kCount; ++i)
      mismatches += tc::to_double(got[i]) != tc::to_double(tc::from_double<T>(tc::hashed_value<T>(99, i, integer_max)));
    INFO(tc::ElementTraits<T>::name << " integer_max " << integer_max);
    CHECK(mismatches == 0);
  };
  check_type(__nv_bfloat16{}, 0);
  check_type(__nv_bfloat16{}, 1);
  check_type(__half{}, 0);
  check_type(float{}, 4);
  check_type(double{}, 0);
  check_type(std::int8_t{}, 0);
  check_type(std::int32_t{}, 0);
  CHECK_THROWS_AS(tc::fill_hashed<float>(nullptr, 1, 0, 257), std::invalid_argument);
}

TEST_CASE("the device checks give the host's verdict on the same operands, for a correct result and planted errors",
          "[gpu][device_check]") {
  tc::test::require_gpu(kAnyGpu);
  using T = __nv_bfloat16;
  const tc::CublasHandle cublas;
  // Chapter 10's layout (y^T = W x^T: op T, op N), with an input C and alpha, beta that round in bf16.
  const tc::GemmProblem p = tc::GemmProblem::tight(tc::Op::T, tc::Op::N, 200, 37, 300, 1.5, 0.5);
  tc::DeviceExactCheck<T, T> exact(cublas, p, 11);
  tc::DeviceRandomOperands<T, T> random(cublas, p, 21);
  // The host's view of each set: its operands brought back, the input C recomputed from its stream, the host
  // reference (on the CPU at this size) and the host comparison.
  auto host_c = [&](std::uint64_t seed, int integer_max) {
    std::vector<T> c(p.c_elements());
    for (std::size_t i = 0; i < c.size(); ++i) c[i] = tc::from_double<T>(tc::hashed_value<T>(seed, i, integer_max));
    return c;
  };
  const std::vector<T> ea = download(exact.a(), p.a_elements()), eb = download(exact.b(), p.b_elements());
  const std::vector<T> ra = download(random.a(), p.a_elements()), rb = download(random.b(), p.b_elements());
  const tc::GemmReference exact_ref = tc::reference_in_fp64<T, T>(cublas, p, ea, eb, host_c(13, 1));
  const tc::GemmReference random_ref = tc::reference_in_fp64<T, T>(cublas, p, ra, rb, host_c(23, 0));
  CHECK(exact.operand_range() == "[-1, 1]");
  CHECK(random.statistics().rms_products == Approx(tc::rms_of_products(p, ra, rb)).epsilon(1e-12));

  // The launches: cuBLAS (correct), then with one element off by one, one NaN, and the last K column dropped.
  enum class Plant { None, OneOff, Nan, DroppedK };
  auto launch_with = [&](Plant plant) {
    return [&, plant](const T* A, const T* B, T* C) {
      const int k = plant == Plant::DroppedK ? p.k - 1 : p.k;  // lda = ldb = K: the first K - 1 of each row
      tc::cublas_gemm<T, T>(cublas, p.op_a, p.op_b, p.m, p.n, k, p.alpha, A, p.lda, B, p.ldb, p.beta, C, p.ldc, C,
                            p.ldc);
      if (plant == Plant::OneOff || plant == Plant::Nan) {
        T* at = C + 17 + std::size_t(5) * p.ldc;  // (17, 5)
        T v = download(at, 1)[0];
        v = plant == Plant::Nan ? tc::from_double<T>(NAN) : tc::from_double<T>(tc::to_double(v) + 1.0);
        TC_CHECK(cudaMemcpy(at, &v, sizeof v, cudaMemcpyHostToDevice));
      }
    };
  };
  for (Plant plant : {Plant::None, Plant::OneOff, Plant::Nan, Plant::DroppedK}) {
    INFO("plant " << int(plant));
    const tc::GemmVerdict v = tc::check_gemm(exact, random, launch_with(plant));
    const std::vector<T> exact_out = download(exact.last_output(), p.c_elements());
    const std::vector<T> random_out = download(random.c(), p.c_elements());
    check_same(v.exact, tc::compare_exact(p, exact_out.data(), p.ldc, exact_ref));
    tc::CompareResult host_random =
        tc::compare(p.m, p.n, p.k, random_out.data(), p.ldc, random_ref, tc::random_operand_tolerance<T>());
    tc::StatisticalInputs s = random.statistics();
    CHECK(s.rms_reference == Approx(tc::rms_of_reference(p, random_ref)).epsilon(1e-12));
    host_random.rms_bound = tc::statistical_rms_bound(s);
    host_random.passed = host_random.passed && host_random.rms_error <= host_random.rms_bound;
    check_same(v.random, host_random);
    // tc::compare_on_device alone, on the host's own reference uploaded: tc::compare's fields, rms_error aside.
    {
      const tc::DeviceBuffer<double> value(random_ref.value), magnitude(random_ref.magnitude);
      const tc::CompareResult device = tc::compare_on_device(p.m, p.n, p.k, random.c(), p.ldc, value.data(),
                                                             magnitude.data(), random_ref.ld,
                                                             tc::random_operand_tolerance<T>());
      const tc::CompareResult host =
          tc::compare(p.m, p.n, p.k, random_out.data(), p.ldc, random_ref, tc::random_operand_tolerance<T>());
      check_same(device, host);
      if (std::isnan(host.rms_error))  // the planted NaN: both sums of squares are NaN
        CHECK(std::isnan(device.rms_error));
      else
        CHECK(device.rms_error == Approx(host.rms_error).epsilon(1e-12));
    }
    // What each check must say: the exact check fails every planted error, at the planted element where there is one.
    CHECK(v.exact.passed == (plant == Plant::None));
    if (plant == Plant::OneOff || plant == Plant::Nan) {
      CHECK(v.exact.worst_row == 17);
      CHECK(v.exact.worst_col == 5);
    }
    if (plant == Plant::Nan) CHECK_FALSE(v.random.passed);
    // A dropped K column moves every element whose a_il b_lj is nonzero: both in {-1, 1}, 4 of 9 draws from [-1, 1].
    if (plant == Plant::DroppedK) CHECK(v.exact.failures > p.m * p.n / 3);
  }
}

TEST_CASE("the device checks take fp16 in and fp32 out, and a beta of zero never reads C", "[gpu][device_check]") {
  tc::test::require_gpu(kAnyGpu);
  const tc::CublasHandle cublas;
  const tc::GemmProblem p = tc::GemmProblem::tight(tc::Op::N, tc::Op::T, 65, 33, 129, 1.0, 0.0);
  tc::DeviceExactCheck<__half, float> exact(cublas, p, 3);
  tc::DeviceRandomOperands<__half, float> random(cublas, p, 4);
  CHECK(exact.operand_range() == "[-4, 4]");
  auto launch = [&](const __half* A, const __half* B, float* C) {
    tc::cublas_gemm<__half, float>(cublas, p.op_a, p.op_b, p.m, p.n, p.k, p.alpha, A, p.lda, B, p.ldb, 0.0, nullptr,
                                   p.ldc, C, p.ldc);
  };
  const tc::GemmVerdict v = tc::check_gemm(exact, random, launch);
  INFO(v.exact.summary() << "\n" << v.random.summary());
  CHECK(v.passed());
  CHECK(v.exact.checked == p.m * p.n);
  CHECK(v.exact.worst_error == 0.0);  // fp32 out: integer sums are exact, and so is the result
  CHECK(v.random.rms_error < v.random.rms_bound);
  // A launch that writes nothing leaves the poison, which fails both checks everywhere.
  const tc::GemmVerdict none = tc::check_gemm(exact, random, [](const __half*, const __half*, float*) {});
  CHECK(none.exact.failures == p.m * p.n);
  CHECK(none.random.failures == p.m * p.n);
}
