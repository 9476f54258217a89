// Host tests of tc/gemm_check.hpp: the exact check's range and tolerance, and mutation tests that feed its comparison
// (compare_exact, what ExactCheck::run calls) deliberately wrong results at k = 8192, the largest size the chapters
// print a PASS for. Each must fail. Beside them, the same mutations on random real operands under the K-scaled bound:
// that is what the chapters checked with before, and the tests record what it lets through.
#include "tc/gemm_check.hpp"
#include "tc/memory.hpp"
#include "tc/random.hpp"
#include "tc/reference.hpp"
#include "tc_test/catch.hpp"
#include "tc_test/mutation.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

TEST_CASE("exact_fill_max keeps r^2 * k within 2^(p-3) and names the limit past it", "[gemm_check]") {
  CHECK(tc::exact_fill_max<float>(0) == 4);
  CHECK(tc::exact_fill_max<float>(8192) == 4);
  CHECK(tc::exact_fill_max<float>(131072) == 4);   // 16 * 2^17 = 2^21
  CHECK(tc::exact_fill_max<float>(131073) == 2);
  CHECK(tc::exact_fill_max<float>(524288) == 2);   // 4 * 2^19 = 2^21
  CHECK(tc::exact_fill_max<float>(2097152) == 1);  // 2^21
  CHECK(tc::exact_fill_max<__half>(16) == 4);      // fp16 accumulation: 2^(11-3) = 256 = 16 * 16
  CHECK(tc::exact_fill_max<__half>(17) == 2);
  CHECK(tc::exact_fill_max<double>(1 << 30) == 4);
  const std::string too_long = tc::test::thrown_message<std::invalid_argument>([] { tc::exact_fill_max<float>(2097153); });
  CHECK(too_long == "k = 2097153 is too long to check exactly with f32 accumulation: integer operands need k <= "
                    "2097152 (tc/gemm_check.hpp)");
  // At the range's end the bound still resolves one product term: 4 u * r^2 * k = 4 * 2^-24 * 2^21 = 1/2 < |alpha| = 1.
  CHECK(4.0 * 0x1p-24 * 16.0 * 131072 == 0.5);
}

TEST_CASE("the exact check's tolerance is the epilogue's alone: 4 u_out times mag, whatever k is", "[gemm_check]") {
  const tc::Tolerance f32 = tc::Tolerance::exact_operands<float>();
  CHECK(f32.u_acc == 0.0);
  CHECK(f32.u_out == 0.0);
  CHECK(f32.u_mag == 4.0 * 0x1p-24);
  const std::vector<double> ref = {100.0}, mag = {1000.0};
  const std::vector<float> off_by_half = {100.5f};
  // k = 1 or k = 8192: the same bound, 4 * 2^-24 * 1000 = 2.4e-4.
  for (int k : {1, 8192}) {
    const tc::CompareResult r = tc::compare(1, 1, k, off_by_half.data(), 1, ref.data(), mag.data(), 1, f32);
    CHECK_FALSE(r.passed);
    CHECK(r.largest_bound == Approx(4.0 * 0x1p-24 * 1000.0));
  }
}

namespace {

// The mutation tests' problem: C = alpha * A * B + beta * C at 8192^3, A row-major (op T, lda = k), B column-major
// (op N, ldb = k), C column-major (ldc = m), chapters 04-06's layout. The operands are filled in full, as ExactCheck
// fills them; the comparison runs on a 32 x 16 block of C at (kRow0, kCol0), each element an exact 8192-term dot
// product: the whole output would be 5.5e11 multiply-adds, a CPU's minutes.
constexpr int kSize = 8192, kRows = 32, kCols = 16, kRow0 = 4096, kCol0 = 2048;

struct Operands {
  std::vector<__half> a, b;  // full 8192 x 8192 each
  std::vector<float> c;      // the sampled block only, column-major, ld kRows
};

Operands make_operands(bool integer) {
  Operands o{std::vector<__half>(std::size_t(kSize) * kSize), std::vector<__half>(std::size_t(kSize) * kSize),
             std::vector<float>(kRows * kCols)};
  if (integer) {
    const int r = tc::exact_fill_max<float>(kSize);
    tc::fill_random_integers(o.a, 1, r);
    tc::fill_random_integers(o.b, 2, r);
    tc::fill_random_integers(o.c, 3, r);
  } else {
    tc::fill_random(o.a, 1, tc::Fill::Real);
    tc::fill_random(o.b, 2, tc::Fill::Real);
    tc::fill_random(o.c, 3, tc::Fill::Real);
  }
  return o;
}

float a_at(const Operands& o, int i, int l) { return __half2float(o.a[std::size_t(i) * kSize + l]); }  // A(i, l)
float b_at(const Operands& o, int l, int j) { return __half2float(o.b[std::size_t(j) * kSize + l]); }  // B(l, j)

// What a kernel writes for the block, in fp32 as the tensor cores do: products summed in float, then
// alpha * sum + beta * c with alpha and beta rounded to float. `a_of` and `b_of` say which elements it multiplies.
template <typename AOf, typename BOf>
std::vector<float> kernel_result(const Operands& o, double alpha, double beta, AOf&& a_of, BOf&& b_of) {
  std::vector<float> d(kRows * kCols);
  for (int j = 0; j < kCols; ++j)
    for (int i = 0; i < kRows; ++i) {
      float sum = 0.0f;
      for (int l = 0; l < kSize; ++l) sum += a_of(kRow0 + i, l) * b_of(l, kCol0 + j);
      d[i + j * kRows] = float(alpha) * sum + (beta != 0.0 ? float(beta) * o.c[i + j * kRows] : 0.0f);
    }
  return d;
}

// The block's fp64 reference, with the 8192-term sums, through tc::reference_gemm on the sampled rows and columns.
tc::GemmReference block_reference(const Operands& o, double alpha, double beta) {
  const std::vector<__half> a_rows(o.a.begin() + std::size_t(kRow0) * kSize, o.a.begin() + std::size_t(kRow0 + kRows) * kSize);
  const std::vector<__half> b_cols(o.b.begin() + std::size_t(kCol0) * kSize, o.b.begin() + std::size_t(kCol0 + kCols) * kSize);
  return tc::reference_gemm(tc::Op::T, tc::Op::N, kRows, kCols, kSize, alpha, a_rows, kSize, b_cols, kSize, beta,
                            beta != 0.0 ? o.c : std::vector<float>{}, kRows);
}

const tc::GemmProblem kBlock{tc::Op::T, tc::Op::N, kRows, kCols, kSize, kSize, kSize, kRows, 1.0, 0.0};

// The wrong results: each is what a kernel with one classic bug would write for the block.
struct Mutant {
  std::string name;
  std::vector<float> result;
};

std::vector<Mutant> mutants(const Operands& o, double alpha, double beta) {
  const auto a = [&](int i, int l) { return a_at(o, i, l); };
  const auto b = [&](int l, int j) { return b_at(o, l, j); };
  const std::vector<float> good = kernel_result(o, alpha, beta, a, b);
  std::vector<Mutant> m;
  for (const int l : {0, 4000, kSize - 1}) {  // the first, a middle and the last K column
    for (const double times : {0.0, 2.0}) {
      std::vector<float> d = good;
      for (int j = 0; j < kCols; ++j)
        for (int i = 0; i < kRows; ++i)
          d[i + j * kRows] += float(alpha * (times - 1.0)) * a(kRow0 + i, l) * b(l, kCol0 + j);
      m.push_back({std::string(times == 0.0 ? "K column " : "doubled K column ") + std::to_string(l) +
                       (times == 0.0 ? " dropped" : ""),
                   d});
    }
  }
  // op(A) read transposed: A(l, i) for A(i, l) (the stored array with the other layout); likewise B.
  m.push_back({"A transposed", kernel_result(o, alpha, beta, [&](int i, int l) { return a_at(o, l, i); }, b)});
  m.push_back({"B transposed", kernel_result(o, alpha, beta, a, [&](int l, int j) { return b_at(o, j, l); })});
  m.push_back({"alpha 1/64 too large", kernel_result(o, alpha * (1.0 + 1.0 / 64), beta, a, b)});
  m.push_back({"alpha negated", kernel_result(o, -alpha, beta, a, b)});
  m.push_back({"beta wrong by 1", kernel_result(o, alpha, beta + 1.0, a, b)});
  m.push_back({"beta ignored (taken as 0)", kernel_result(o, alpha, 0.0, a, b)});
  // One 16 x 8 output tile (an m16n8 mma tile) never written: NaN where C was poisoned (beta == 0), the input C where
  // the kernel reads it (beta != 0).
  std::vector<float> unwritten = good;
  for (int j = 8; j < 16; ++j)
    for (int i = 16; i < 32; ++i)
      unwritten[i + j * kRows] = beta == 0.0 ? std::numeric_limits<float>::quiet_NaN() : o.c[i + j * kRows];
  m.push_back({"one 16 x 8 tile unwritten", unwritten});
  m.push_back({"correct", good});  // must pass: the last entry
  return m;
}

}  // namespace

TEST_CASE("at k = 8192 the exact check fails every classic mutation and passes the correct result",
          "[gemm_check][mutation]") {
  const Operands o = make_operands(true);
  for (auto [alpha, beta] : {std::pair{1.0, 0.0}, std::pair{0.5, 2.0}}) {
    tc::GemmProblem p = kBlock;
    p.alpha = alpha;
    p.beta = beta;
    const tc::GemmReference ref = block_reference(o, alpha, beta);
    const std::vector<Mutant> all = mutants(o, alpha, beta);
    for (const Mutant& mutant : all) {
      if (mutant.name == "beta ignored (taken as 0)" && beta == 0.0) continue;  // not a mutation when beta is 0
      const tc::CompareResult r = tc::compare_exact(p, mutant.result.data(), kRows, ref);
      INFO("alpha " << alpha << " beta " << beta << ", " << mutant.name << ": " << r.summary());
      CHECK(r.passed == (mutant.name == "correct"));
      CHECK(tc::resolves_one_term(r, alpha));  // its largest bound stays below |alpha|
    }
  }
}

TEST_CASE("at k = 8192 the K-scaled bound on random real operands lets a dropped or doubled K column through",
          "[gemm_check][mutation]") {
  // What the chapters relied on before the exact check: Tolerance::fp32_accumulate on random reals. Its bound at this
  // size is about k * 2^-23 * mag ~ 2 per element while one K term moves an element by |a * b| < 1, so these pass
  // in every sampled element; the exact check above fails them. The gross mutations still fail.
  const Operands o = make_operands(false);
  const tc::GemmReference ref = block_reference(o, 1.0, 0.0);
  const tc::Tolerance tol = tc::Tolerance::fp32_accumulate<float>();
  for (const Mutant& mutant : mutants(o, 1.0, 0.0)) {
    const tc::CompareResult r =
        tc::compare(kRows, kCols, kSize, mutant.result.data(), kRows, ref.value.data(), ref.magnitude.data(), ref.ld, tol);
    INFO(mutant.name << ": " << r.summary());
    if (mutant.name.find("K column") != std::string::npos || mutant.name == "correct") {
      CHECK(r.passed);
      CHECK(r.largest_bound > 1.0);  // above any one term's |a * b| < 1
    } else if (mutant.name.find("transposed") != std::string::npos || mutant.name.find("unwritten") != std::string::npos ||
               mutant.name == "alpha negated") {
      CHECK_FALSE(r.passed);
    }
  }
}

TEST_CASE("format_verification shows both checks and flags an exact check that cannot resolve one term",
          "[gemm_check]") {
  tc::GemmVerdict v;
  v.exact.checked = 100;
  v.exact.largest_bound = 0.0078;
  v.random.worst_error = 2e-5;
  v.random.worst_bound = 3.9;
  v.exact_range = "[-4, 4]";
  const std::string ok = tc::format_verification("kernel", {{"step 4", v, 1.0}});
  CHECK(ok.find("step 4") != std::string::npos);
  CHECK(ok.find("0/100") != std::string::npos);
  CHECK(ok.find("PASS") != std::string::npos);
  CHECK(ok.find("note:") == std::string::npos);
  const std::string tiny_alpha = tc::format_verification("kernel", {{"step 4", v, 0.001}});
  CHECK(tiny_alpha.find("note: step 4: the max bound is not below |alpha|") != std::string::npos);
  v.exact.passed = false;
  v.exact.failures = 3;
  const std::string failed = tc::format_verification("kernel", {{"step 4", v, 1.0}});
  CHECK(failed.find("FAIL\n") != std::string::npos);  // the verdict column
  CHECK(failed.find("FAIL step 4, exact check: FAIL: 97/100 within tolerance") != std::string::npos);
}

TEST_CASE("gemm_check_memory counts both operand sets and the references, and refuses 64-bit overflow",
          "[gemm_check][memory]") {
  const tc::GemmProblem p = tc::GemmProblem::tight(tc::Op::T, tc::Op::N, 8192, 8192, 8192, 1.0, 0.0);
  const tc::MemoryNeed need = tc::gemm_check_memory<__half, float>(p);
  const std::uint64_t s2 = std::uint64_t(8192) * 8192;
  // Device: two sets of A and B (2 bytes) and C (4 bytes), plus DGEMM's A, B, C and D in fp64.
  CHECK(need.device_bytes == 2 * (2 * s2 + 2 * s2 + 4 * s2) + 8 * 4 * s2);
  // Host: two references (value and magnitude), the kept input Cs and outputs, one operand set, one fp64 copy.
  CHECK(need.host_bytes == 2 * 16 * s2 + 4 * 4 * s2 + (2 + 2 + 4) * s2 + 8 * s2);
  const tc::GemmProblem huge = tc::GemmProblem::tight(tc::Op::N, tc::Op::N, 2147483647, 2147483647, 2147483647, 1, 0);
  const std::string overflow =
      tc::test::thrown_message<tc::TooLargeError>([&] { tc::gemm_check_memory<double, double>(huge); });
  CHECK(overflow.find("more than 2^64 bytes") != std::string::npos);
}

// ---- the statistical check ------------------------------------------------------------------------------------

TEST_CASE("the statistical bound is c sqrt(K) (u_in |alpha| RMS(a*b) + (u_acc + u_ref) RMS(ref)) + u_out RMS(ref)",
          "[gemm_check][statistical]") {
  tc::StatisticalInputs s;
  s.k = 4096;
  s.alpha = -0.5;
  s.u_in = 0x1p-11;
  s.u_acc = 0x1p-23;
  s.u_ref = 0x1p-53;
  s.u_out = 0x1p-24;
  s.rms_products = 1.0 / 3.0;
  s.rms_reference = 20.0;
  const double want = 64.0 * (0x1p-11 * 0.5 / 3.0 + (0x1p-23 + 0x1p-53) * 20.0) + 0x1p-24 * 20.0;
  CHECK(tc::statistical_rms_bound(s) == Approx(tc::kStatisticalC * (want - 0x1p-24 * 20.0) + 0x1p-24 * 20.0));
  s.k = 0;  // C = beta * C: only the output's rounding
  CHECK(tc::statistical_rms_bound(s) == Approx(0x1p-24 * 20.0));
  // RMS(a*b) of a 2 x 1 x 2 problem, A = [[1, 2], [3, 4]] (op N, column-major), B = [5, 6]^T: the products are 5, 12,
  // 15, 24.
  const tc::GemmProblem p = tc::GemmProblem::tight(tc::Op::N, tc::Op::N, 2, 1, 2, 1.0, 0.0);
  const std::vector<double> a = {1, 3, 2, 4}, b = {5, 6};
  CHECK(tc::rms_of_products(p, a, b) == Approx(std::sqrt((25.0 + 144.0 + 225.0 + 576.0) / 4.0)));
}

namespace {

// The statistical check on the host, on a 16 x 16 block with K = 4096 of random operands in [-1, 1) of type TIn (after
// `prepare`, e.g. tf32 rounding: what the kernel and the reference both see): the reference in fp64, and a "kernel"
// that sums the products of `read`(a) and `read`(b) in fp32 in K order, as a tensor core's fp32 accumulator would.
// read is the identity for a correct kernel, and a rounding for a planted one. Returns rms error / rms bound.
template <typename TIn, typename Prepare, typename Read>
double rms_over_bound(double u_in, Prepare prepare, Read read) {
  constexpr int m = 16, n = 16, k = 4096;
  const tc::GemmProblem p = tc::GemmProblem::tight(tc::Op::T, tc::Op::N, m, n, k, 1.0, 0.0);
  std::vector<TIn> a(std::size_t(k) * m), b(std::size_t(k) * n);
  tc::fill_random(a, 7, tc::Fill::Real);
  tc::fill_random(b, 8, tc::Fill::Real);
  for (TIn& x : a) x = prepare(x);
  for (TIn& x : b) x = prepare(x);
  const tc::GemmReference ref = tc::reference_gemm(p.op_a, p.op_b, m, n, k, 1.0, a, p.lda, b, p.ldb, 0.0,
                                                   std::vector<float>{}, p.ldc);
  std::vector<float> got(std::size_t(m) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      float sum = 0.0f;
      for (int l = 0; l < k; ++l) sum += read(float(tc::to_double(a[l + std::size_t(i) * k]))) *
                                         read(float(tc::to_double(b[l + std::size_t(j) * k])));
      got[i + std::size_t(j) * m] = sum;
    }
  const tc::Tolerance tol = tc::random_operand_tolerance<float>();
  const tc::StatisticalInputs s{k, 1.0, u_in, tol.u_acc, tol.u_out, 0x1p-53, tc::rms_of_products(p, a, b),
                                tc::rms_of_reference(p, ref)};
  const tc::CompareResult r = tc::compare(m, n, k, got.data(), m, ref, tol);
  return r.rms_error / tc::statistical_rms_bound(s);
}

}  // namespace

TEST_CASE("the statistical check passes fp32 sums of exact inputs and fails inputs read at 8 bits, at K = 4096",
          "[gemm_check][statistical]") {
  auto same = [](auto x) { return x; };
  // fp16 inputs: products exact in fp32, so a correct kernel's error is its fp32 sums', far under the bound; a kernel
  // that reads them as bf16 (8 significant bits, not 11) errs several times over it.
  const double f16 = rms_over_bound<__half>(0x1p-11, same, same);
  const double f16_as_bf16 = rms_over_bound<__half>(0x1p-11, same, [](float x) { return tc::test::keep_significant_bits(x, 8, tc::test::Cut::Round); });
  // tf32 inputs (fp32 rounded to 11 bits, as the WMMA tf32 kernels read them), and a kernel truncating them to 8.
  auto tf32 = [](float x) { return tc::round_to_tf32(x); };
  const double t32 = rms_over_bound<float>(0x1p-11, tf32, same);
  const double t32_truncated = rms_over_bound<float>(0x1p-11, tf32, [](float x) { return tc::test::keep_significant_bits(x, 8, tc::test::Cut::Truncate); });
  INFO("rms error / bound: fp16 " << f16 << ", fp16 read as bf16 " << f16_as_bf16 << ", tf32 " << t32
                                  << ", tf32 truncated to 8 bits " << t32_truncated);
  CHECK(f16 < 0.2);
  CHECK(t32 < 0.2);
  CHECK(f16_as_bf16 > 2.0);
  CHECK(t32_truncated > 2.0);
}
