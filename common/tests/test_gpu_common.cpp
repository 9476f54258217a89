// GPU tests of tc::common: device memory, cuBLAS against the CPU reference, event timing.
#include "tc/compare.hpp"
#include "tc/cublas_reference.hpp"
#include "tc/device_buffer.hpp"
#include "tc/random.hpp"
#include "tc/reference.hpp"
#include "tc/timer.hpp"
#include "tc_test/catch.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

namespace {
constexpr int kAnyGpu = 75;  // CUDA 13 supports nothing older, and these tests use no sm-specific feature

// Checks cublas_gemm against reference_gemm for one type pair and transpose combination, on a shape that is not a
// multiple of anything (17 x 33 x 65), with padded leading dimensions and non-trivial alpha/beta.
template <typename TIn, typename TOut>
void check_cublas_against_cpu(tc::Op op_a, tc::Op op_b, int m, int n, int k, double alpha, double beta,
                              tc::Tolerance tol, tc::Fill fill, std::uint64_t seed) {
  const int lda = (op_a == tc::Op::N ? m : k) + 4;
  const int ldb = (op_b == tc::Op::N ? k : n) + 4;
  const int ldc = m + 4;
  std::vector<TIn> a(static_cast<std::size_t>(lda) * (op_a == tc::Op::N ? k : m));
  std::vector<TIn> b(static_cast<std::size_t>(ldb) * (op_b == tc::Op::N ? n : k));
  std::vector<TOut> c(static_cast<std::size_t>(ldc) * n);
  tc::fill_random(a, seed, fill);
  tc::fill_random(b, seed + 1, fill);
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = tc::from_double<TOut>(static_cast<double>(i % 7) - 3.0);
  std::vector<double> ref(c.size()), mag(c.size());
  tc::reference_gemm(op_a, op_b, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc, ref.data(), ldc,
                     mag.data());

  tc::DeviceBuffer<TIn> d_a(a), d_b(b);
  tc::DeviceBuffer<TOut> d_c(c), d_d(c.size());
  d_d.poison();
  tc::CublasHandle handle;
  tc::cublas_gemm(handle, op_a, op_b, m, n, k, alpha, d_a.data(), lda, d_b.data(), ldb, beta, d_c.data(), ldc,
                  d_d.data(), ldc);
  const std::vector<TOut> got = d_d.download();
  const tc::CompareResult r = tc::compare(m, n, k, got.data(), ldc, ref.data(), mag.data(), ldc, tol);
  INFO(tc::ElementTraits<TIn>::name << " op(A)=" << tc::op_name(op_a) << " op(B)=" << tc::op_name(op_b) << ": "
                                    << r.summary());
  CHECK(r.passed);
  CHECK(d_c.download() == c);  // C is an input only
}
}  // namespace

TEST_CASE("DeviceBuffer round-trips data and poisons with NaN / 0x80808080", "[gpu][device_buffer]") {
  tc::test::require_gpu(kAnyGpu);
  const std::vector<float> host = {1.0f, -2.0f, 3.5f};
  tc::DeviceBuffer<float> buf(host);
  CHECK(buf.size() == 3);
  CHECK(buf.bytes() == 12);
  CHECK(buf.download() == host);
  buf.poison();
  for (float x : buf.download()) CHECK(std::isnan(x));
  tc::DeviceBuffer<std::int32_t> ints(4);
  ints.poison();
  CHECK(ints.download() == std::vector<std::int32_t>(4, -2139062144));  // bytes 0x80
  tc::DeviceBuffer<float> moved(std::move(buf));
  CHECK(moved.size() == 3);
  CHECK(buf.data() == nullptr);  // NOLINT(bugprone-use-after-move): moved-from state is part of the contract
  CHECK_THROWS_AS(moved.upload({1.0f}), std::invalid_argument);
}

// Tagged [api_error]: compute-sanitizer rightly reports the failed cudaMalloc, so sanitizer runs exclude this case.
TEST_CASE("TC_CHECK turns an impossible allocation into a one-line CudaError", "[gpu][check][api_error]") {
  tc::test::require_gpu(kAnyGpu);
  const std::string msg =
      tc::test::thrown_message<tc::CudaError>([] { tc::DeviceBuffer<char> huge(std::size_t(1) << 50); });
  CHECK(msg.find("cudaErrorMemoryAllocation") != std::string::npos);
}

TEST_CASE("cuBLAS reference agrees with the CPU reference for every type and transpose", "[gpu][cublas]") {
  tc::test::require_gpu(kAnyGpu);
  const tc::Op op_a = GENERATE(tc::Op::N, tc::Op::T);
  const tc::Op op_b = GENERATE(tc::Op::N, tc::Op::T);
  const auto f32 = tc::Tolerance::fp32_accumulate<float>();
  check_cublas_against_cpu<__half, float>(op_a, op_b, 17, 33, 65, 1.5, -0.5, f32, tc::Fill::Real, 11);
  check_cublas_against_cpu<__nv_bfloat16, float>(op_a, op_b, 17, 33, 65, 1.5, -0.5, f32, tc::Fill::Real, 12);
  check_cublas_against_cpu<float, float>(op_a, op_b, 17, 33, 65, 1.5, -0.5, f32, tc::Fill::Real, 13);
  check_cublas_against_cpu<double, double>(op_a, op_b, 17, 33, 65, 1.5, -0.5, tc::Tolerance::fp64_accumulate(),
                                           tc::Fill::Real, 14);
  // Integer-valued fp16 makes fp32 accumulation exact: cuBLAS must then match to the last bit.
  check_cublas_against_cpu<__half, float>(op_a, op_b, 17, 33, 65, 2.0, -1.0, tc::Tolerance::exact(),
                                          tc::Fill::Integer, 15);
}

TEST_CASE("cuBLAS int8 (TN) matches the CPU reference exactly at the extremes", "[gpu][cublas]") {
  tc::test::require_gpu(kAnyGpu);
  // cuBLAS's IMMA path wants sizes and leading dimensions that are multiples of 4 (cublasGemmEx documentation).
  check_cublas_against_cpu<std::int8_t, std::int32_t>(tc::Op::T, tc::Op::N, 32, 64, 256, 1.0, 2.0,
                                                      tc::Tolerance::exact(), tc::Fill::Real, 16);
}

TEST_CASE("benchmark times real GPU work", "[gpu][timer]") {
  tc::test::require_gpu(kAnyGpu);
  const int n = 512;
  std::vector<float> host(std::size_t(n) * n);
  tc::fill_random(host, 17, tc::Fill::Real);  // never time on zeros: they can run faster than real data
  tc::DeviceBuffer<float> a(host), c(host.size());
  tc::CublasHandle handle;
  const tc::TimingStats s = tc::benchmark(
      [&] {
        tc::cublas_gemm<float, float>(handle, tc::Op::N, tc::Op::N, n, n, n, 1.0, a.data(), n, a.data(), n, 0.0,
                                      nullptr, n, c.data(), n);
      },
      2, 5);
  CHECK(s.repeats == 5);
  CHECK(s.min_ms > 0.0);
  CHECK(s.min_ms <= s.median_ms);
  CHECK(s.median_ms <= s.max_ms);
}
