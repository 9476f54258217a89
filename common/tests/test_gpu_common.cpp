// GPU tests of tc::common: device memory, cuBLAS against the CPU reference, and the checks of
// tc/gemm_check.hpp failing bugs planted around cuBLAS at 4096^3 (C's padding written, alpha rounded to bf16, inputs
// read at 8 significant bits).
#include "tc/compare.hpp"
#include "tc/cublas_reference.hpp"
#include "tc/device_buffer.hpp"
#include "tc/random.hpp"
#include "tc/reference.hpp"
#include "tc_test/catch.hpp"
#include "tc_test/gemm.hpp"
#include "tc_test/mutation.hpp"

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

// ---- the checks fail planted bugs at 4096^3 -------------------------------------------------------------------
// cuBLAS stands in for a correct kernel, and each bug is planted around it: its result must pass, and each planted
// variant must fail the check that exists for it (tc/gemm_check.hpp, tc_test/gemm.hpp).

namespace {

constexpr int kPlanted = 4096;

// cuBLAS's fp16 -> fp32 TN GEMM as a launch for tc::test::check_both, on problem p, with alpha as given.
auto cublas_f16(const tc::CublasHandle& cublas, const tc::GemmProblem& p, double alpha) {
  return [&cublas, p, alpha](const __half* A, const __half* B, float* C) {
    tc::cublas_gemm<__half, float>(cublas, p.op_a, p.op_b, p.m, p.n, p.k, alpha, A, p.lda, B, p.ldb, p.beta, C, p.ldc,
                                   C, p.ldc);
  };
}

// A copy of device operand x (count elements) as a kernel that reads it at `bits` significant bits would see it.
template <typename T>
tc::DeviceBuffer<T> read_at_bits(const T* x, std::size_t count, int bits, tc::test::Cut cut) {
  std::vector<T> host(count);
  TC_CHECK(cudaMemcpy(host.data(), x, count * sizeof(T), cudaMemcpyDeviceToHost));
  for (T& v : host) v = tc::from_double<T>(tc::test::keep_significant_bits(float(tc::to_double(v)), bits, cut));
  return tc::DeviceBuffer<T>(host);
}

}  // namespace

TEST_CASE("at 4096^3 the checks fail a write into C's padding, alpha rounded to bf16, and inputs read at 8 bits",
          "[gpu][planted][large]") {
  tc::test::require_gpu(kAnyGpu);
  const tc::CublasHandle cublas;
  const tc::GemmProblem tight =
      tc::GemmProblem::tight(tc::Op::T, tc::Op::N, kPlanted, kPlanted, kPlanted, 0.3, -1.7);
  const tc::GemmProblem p = tc::test::with_padding(tight, 2, 4);
  REQUIRE(p.ldc > p.m);

  // The correct result passes all three checks and leaves C's padding alone.
  const tc::test::GemmCheckOutcome good = tc::test::check_both<__half, float>(cublas, p, 5, cublas_f16(cublas, p, 0.3));
  INFO("correct: exact " << good.verdict.exact.summary() << "\nrandom " << good.verdict.random.summary());
  CHECK(good.verdict.passed());
  CHECK(good.padding_untouched);

  // One element written into C's padding (row m of column n / 2), after an otherwise correct run.
  const tc::test::GemmCheckOutcome padding = tc::test::check_both<__half, float>(
      cublas, p, 5, [&](const __half* A, const __half* B, float* C) {
        cublas_f16(cublas, p, 0.3)(A, B, C);
        const float stray = 1.0f;
        TC_CHECK(cudaMemcpy(C + p.m + std::size_t(p.n / 2) * p.ldc, &stray, sizeof stray, cudaMemcpyHostToDevice));
      });
  CHECK(padding.verdict.passed());
  CHECK_FALSE(padding.padding_untouched);

  // alpha rounded to bf16 (0.3 -> 0.30078125): the exact check sees every element move by 2^-9 of it.
  const double alpha_bf16 = tc::to_double(tc::from_double<__nv_bfloat16>(0.3));
  const tc::test::GemmCheckOutcome rounded_alpha =
      tc::test::check_both<__half, float>(cublas, p, 5, cublas_f16(cublas, p, alpha_bf16));
  INFO("alpha as bf16: exact " << rounded_alpha.verdict.exact.summary());
  CHECK_FALSE(rounded_alpha.verdict.exact.passed);

  // fp16 inputs read as bf16: the exact check's small integers survive that, so only the statistical check sees it.
  const tc::test::GemmCheckOutcome as_bf16 = tc::test::check_both<__half, float>(
      cublas, p, 5, [&](const __half* A, const __half* B, float* C) {
        const auto a = read_at_bits(A, p.a_elements(), 8, tc::test::Cut::Round);
        const auto b = read_at_bits(B, p.b_elements(), 8, tc::test::Cut::Round);
        cublas_f16(cublas, p, 0.3)(a.data(), b.data(), C);
      });
  INFO("fp16 read as bf16: random " << as_bf16.verdict.random.summary());
  CHECK(as_bf16.verdict.exact.passed);
  CHECK_FALSE(as_bf16.verdict.random.passed);
  CHECK(as_bf16.verdict.random.rms_error > as_bf16.verdict.random.rms_bound);
}

TEST_CASE("at 4096^3 the statistical check fails tf32 inputs truncated to 8 significant bits", "[gpu][planted][large]") {
  tc::test::require_gpu(80);  // cuBLAS's tf32 tensor-core mode
  const tc::CublasHandle cublas;
  const tc::GemmProblem p = tc::GemmProblem::tight(tc::Op::T, tc::Op::N, kPlanted, kPlanted, kPlanted, 1.0, 0.0);
  // A tf32 kernel as the chapters' are: its inputs rounded to nearest at tf32's 11 significant bits (what the
  // reference sees, tc::InputRounding::Tf32), then multiplied by cuBLAS in its tf32 mode, whatever rounding that uses.
  auto tf32 = [&](const float* A, const float* B, float* C) {
    const auto a = read_at_bits(A, p.a_elements(), 11, tc::test::Cut::Round);
    const auto b = read_at_bits(B, p.b_elements(), 11, tc::test::Cut::Round);
    tc::cublas_gemm<float, float>(cublas, p.op_a, p.op_b, p.m, p.n, p.k, 1.0, a.data(), p.lda, b.data(), p.ldb, 0.0,
                                  C, p.ldc, C, p.ldc, tc::CublasMath::Tf32);
  };
  const tc::test::GemmCheckOutcome good =
      tc::test::check_both<float, float>(cublas, p, 9, tf32, tc::InputRounding::Tf32);
  INFO("tf32: random " << good.verdict.random.summary());
  CHECK(good.verdict.passed());
  const tc::test::GemmCheckOutcome truncated = tc::test::check_both<float, float>(
      cublas, p, 9,
      [&](const float* A, const float* B, float* C) {
        const auto a = read_at_bits(A, p.a_elements(), 8, tc::test::Cut::Truncate);
        const auto b = read_at_bits(B, p.b_elements(), 8, tc::test::Cut::Truncate);
        tf32(a.data(), b.data(), C);
      },
      tc::InputRounding::Tf32);
  INFO("tf32 truncated to 8 bits: random " << truncated.verdict.random.summary());
  CHECK_FALSE(truncated.verdict.random.passed);
  CHECK(truncated.verdict.random.rms_error > truncated.verdict.random.rms_bound);
}
