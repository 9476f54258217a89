// Chapter 09 tests. GPU (SM 9.0 only): the int8 step (s8, u8) through the project's two checks (both exact for 8-bit
// integers) on one tile, many tiles, ragged shapes (TMA clipping, and the padded path for k = 1000 and 65), k = 0 and
// every int32 scale; the fp8 steps 1 and 3 (bf16 and fp32 D; step 1 on e5m2 too) on the exact set (every element equal
// to the fp64 reference up to the output's rounding) and the random set (within the unpromoted bound), on the same
// shapes, 4095 x 4097 x 1000 included; the probe against the checks' premise; cuBLASLt's fp8 GEMM (the yardstick) on
// the exact set, per-tensor and block-scaled; in [large], every step at 8192^3, and the exact checks failing at 8192^3
// on a bug planted in each step's producer (one box of A, or one slice of B, loaded twice), in step 3's promotion (a K
// group skipped) and in step 4's scales (tc_test/planted_bugs.cuh). Host: the exact set's range keeps every partial sum
// under the limit (e5m2's values within -8 .. 8), the fp8 traits and the block quantizer round and saturate as cvt
// does, the launchers' one-line errors, the error-against-K figure's lines, and the committed figures against
// tools/figures.hpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "chapter_config.hpp"  // tc::chapter::kMinSm
#include "error_vs_k.cuh"
#include "fp8_run.cuh"
#include "probes.cuh"
#include "quantizer.cuh"
#include "step1_fp8_per_tensor.cuh"
#include "step3_promotion.cuh"
#include "step4_block_scaling.cuh"
#include "step5_int8.cuh"
#include "tools/figures.hpp"
#include "tc/cublas_reference.hpp"
#include "tc/cublaslt_fp8.hpp"
#include "tc/fp8_gemm_check.hpp"
#include "tc/padded_gemm.hpp"
#include "tc_test/catch.hpp"
#include "tc_test/planted_bugs.cuh"
#include "tc_test/gemm.hpp"

namespace {

template <typename P>
using Int8Gemm = Gemm8<Step5Int8, Step5Tile, P>;
template <typename P>
using Fp8Gemm = Gemm8<Step1Fp8, Step1Tile, P>;
template <typename P>
using PromotedGemm = Gemm8<Step3Promotion, Step3Tile, P>;
template <typename P>
using BlockGemm = Gemm8<Step4BlockScaling, Step4Tile, P>;

// f(P{}) for both int8 precisions; f(Gemm{}) for both fp8 steps at both fp8 precisions.
template <typename F>
void for_each_int8(F&& f) {
  f(tc::S8S32{});
  f(tc::U8S32{});
}
template <typename F>
void for_each_fp8(F&& f) {
  f(Fp8Gemm<tc::E5M2BF16>{});  // e5m2: the same kernel on .e5m2 wgmmas
  f(Fp8Gemm<tc::E4M3BF16>{});
  f(Fp8Gemm<tc::E4M3F32>{});
  f(PromotedGemm<tc::E4M3BF16>{});
  f(PromotedGemm<tc::E4M3F32>{});
}

// The significand bits this GPU's fp8 accumulator keeps (step 2's probe, both placements), measured once a process:
// the random set's statistical bound takes them.
int measured_bits() {
  static const int bits = std::min(probe_fp8_accumulator(1).bits_kept(), probe_fp8_accumulator(32).bits_kept());
  return bits;
}

// Gemm (an fp8 step) on one operand set at (m, n, k): C poisoned with NaN (beta == 0) or set to small values, the
// launch, and the comparison with fp64 under the set's tolerance. Returns whether every element passed.
template <typename Gemm>
bool fp8_set_passes(const tc::CublasHandle& cublas, int m, int n, int k, double alpha, double beta, tc::Fp8Set set,
                    std::uint64_t seed) {
  using Fp8 = typename Gemm::Input;
  using Out = typename Gemm::Out;
  constexpr bool kBlock = Gemm::Step::kBlockScaled;
  const tc::Fp8Operands<Fp8> op = kBlock ? tc::make_fp8_block_operands<Fp8>(m, n, k, set, seed)
                                         : tc::make_fp8_operands<Fp8>(m, n, k, set, seed);
  const Fp8DeviceOperands<Fp8> d(op);
  std::vector<double> c_double;
  const std::vector<Out> c_in = fp8_c_input<Out>({m, n, k}, set, seed + 2, c_double);
  tc::DeviceBuffer<Out> c(c_in);
  if (beta == 0.0) TC_CHECK(cudaMemset(c.data(), 0xFF, c.bytes()));  // NaN: every element must be written
  const int ld = std::max(k, 1);  // cuBLAS's rule, where k = 0
  if constexpr (kBlock)
    launch_fp8_block_scaled<typename Gemm::Tile, Out>(m, n, k, float(alpha), d.a.data(), ld, d.sa.data(), op.ld_sa(),
                                                      d.b.data(), ld, d.sb.data(), op.ld_sb(), float(beta), c.data(),
                                                      m, nullptr);
  else
    launch_fp8_per_tensor<Gemm>(m, n, k, float(alpha), d.a.data(), ld, op.scale_a, d.b.data(), ld, op.scale_b,
                                float(beta), c.data(), m, nullptr);
  const tc::GemmReference ref =
      tc::fp8_reference(cublas, op, alpha, beta, beta != 0.0 ? c_double : std::vector<double>{});
  const std::vector<Out> got = c.download();
  const tc::Tolerance tol =
      set == tc::Fp8Set::Exact ? tc::Tolerance::exact_operands<Out>() : tc::fp8_unpromoted_tolerance<Out>();
  tc::CompareResult r = tc::compare(m, n, k, got.data(), m, ref, tol);
  if (set == tc::Fp8Set::Random) {  // and the statistical check
    r.rms_bound = fp8_rms_bound<Gemm>(op, ref, alpha, measured_bits());
    r.passed = r.passed && r.rms_error <= r.rms_bound;
  }
  INFO(Gemm::name << " " << Gemm::Precision::name << " " << m << "x" << n << "x" << k << " alpha " << alpha
                  << " beta " << beta << (set == tc::Fp8Set::Exact ? " exact set: " : " random set: ")
                  << r.summary());
  CHECK(r.passed);
  return r.passed;
}

template <typename Gemm>
void check_fp8(const tc::CublasHandle& cublas, int m, int n, int k, double alpha, double beta) {
  fp8_set_passes<Gemm>(cublas, m, n, k, alpha, beta, tc::Fp8Set::Exact, 61);
  fp8_set_passes<Gemm>(cublas, m, n, k, alpha, beta, tc::Fp8Set::Random, 67);
}

}  // namespace

TEST_CASE("the fp8 exact set keeps every partial sum within the accumulator's exact range", "[fp8]") {
  for (int k : {1, 16, 64, 65, 128, 1000, 2048, 2049, 4096, 8192, 16384, 65536}) {
    const tc::Fp8ExactRange r = tc::fp8_exact_range(k);
    INFO("k = " << k << ": r = " << r.r << ", q = " << r.q);
    const std::int64_t terms = (k + r.q - 1) / r.q;  // nonzero products a sum can have
    CHECK(terms * r.r * r.r <= tc::kFp8ExactSumLimit);
    CHECK(r.r >= 1);
    CHECK(r.r <= 16);  // e4m3 holds the integers -16 .. 16 exactly
    if (k <= tc::kFp8ExactSumLimit) CHECK(r.q == 1);
    if (r.q == 1 && r.r < 16) CHECK(std::int64_t(k) * (r.r + 1) * (r.r + 1) > tc::kFp8ExactSumLimit);  // the largest
  }
  // The sparse rows: at k = 8192 every row of A has at most 2048 nonzeros, wherever it lies.
  const tc::Fp8Operands<__nv_fp8_e4m3> o = tc::make_fp8_operands<__nv_fp8_e4m3>(5, 3, 8192, tc::Fp8Set::Exact, 3);
  for (int i = 0; i < 5; ++i) {
    int nonzero = 0;
    for (int l = 0; l < 8192; ++l) nonzero += tc::to_double(o.a[std::size_t(i) * 8192 + l]) != 0.0;
    CHECK(nonzero <= tc::kFp8ExactSumLimit);
  }
}

TEST_CASE("e5m2 holds the integers -8 .. 8 and no more, and its exact set stays within them", "[fp8]") {
  using E5M2 = tc::ElementTraits<__nv_fp8_e5m2>;
  CHECK(tc::fp8_largest_exact_integer(tc::kE4M3) == 16);
  CHECK(tc::fp8_largest_exact_integer(tc::kE5M2) == 8);
  for (int v = -8; v <= 8; ++v) CHECK(E5M2::to_double(E5M2::from_double(v)) == v);
  CHECK(E5M2::to_double(E5M2::from_double(9.0)) == 8.0);  // a tie between 8 and 10: to the even code
  CHECK(E5M2::to_double(E5M2::from_double(1e9)) == 57344.0);  // saturates at its largest finite value
  CHECK(tc::fp8_exact_range(1, 8).r == 8);
  CHECK(tc::fp8_exact_range(1).r == 16);
  const tc::Fp8Operands<__nv_fp8_e5m2> o = tc::make_fp8_operands<__nv_fp8_e5m2>(7, 5, 16, tc::Fp8Set::Exact, 3);
  double largest = 0.0;
  for (const auto& x : o.a) largest = std::max(largest, std::fabs(E5M2::to_double(x)));
  for (const auto& x : o.b) largest = std::max(largest, std::fabs(E5M2::to_double(x)));
  CHECK(largest <= 8.0);
  CHECK(largest >= 5.0);  // k = 16 allows r = 11 for e4m3; e5m2's cap of 8 is what binds
}

TEST_CASE("the fp8 traits are exact to double and round to nearest even, saturating, from double", "[fp8]") {
  using E4M3 = tc::ElementTraits<__nv_fp8_e4m3>;
  CHECK(E4M3::to_double(E4M3::from_double(448.0)) == 448.0);
  CHECK(E4M3::to_double(E4M3::from_double(1e9)) == 448.0);    // saturates
  CHECK(E4M3::to_double(E4M3::from_double(-1e9)) == -448.0);
  CHECK(E4M3::to_double(E4M3::from_double(17.0)) == 16.0);    // 17 is a tie between 16 and 18: to the even code
  CHECK(E4M3::to_double(E4M3::from_double(19.0)) == 20.0);    // a tie between 18 and 20: 20's mantissa is even
  for (int v = -16; v <= 16; ++v) CHECK(E4M3::to_double(E4M3::from_double(v)) == v);
  CHECK(std::string(E4M3::name) == "e4m3");
  CHECK(tc::fp8_tensor_scale<__nv_fp8_e4m3>({0.5f, -0.875f, 0.25f}) == 0.875f / 448.0f);
}

TEST_CASE("each step's tile fits an H200 block and gives its consumers what they hold", "[tiles]") {
  // Steps 1 and 5: one m64n256 accumulator a consumer, its 64 rows of A one TMA box, C staged apart from the ring.
  STATIC_REQUIRE(Step1Tile::kRowBlocks == 1 && Step1Tile::kConsumerCols == 256 && Step1Tile::kABoxRows == 64);
  STATIC_REQUIRE(Step1Tile::kSmemBytes <= 227 * 1024);
  STATIC_REQUIRE(std::is_same_v<Step1Tile, Step5Tile>);
  // Step 3: the same 128 x 256 tile split along N, two m64n128 row blocks and a scratch one, C staged in half of B.
  STATIC_REQUIRE(Step3Tile::BlockM == Step1Tile::BlockM && Step3Tile::BlockN == Step1Tile::BlockN);
  STATIC_REQUIRE(Step3Tile::kRowBlocks == 2 && Step3Tile::kConsumerCols == 128 && Step3Tile::kEpilogueBytes == 0);
  STATIC_REQUIRE(Step3Tile::kConsumerRegisters >= Step3Tile::kAccumulators + Step3Tile::kScratch + 48);
}

TEST_CASE("the 8-bit launchers reject bad arguments with one-line errors", "[errors]") {
  const std::string lda = tc::test::thrown_message<std::invalid_argument>([] {
    tc::launch_gemm_any_size<Int8Gemm<tc::S8S32>>(64, 64, 64, 1, static_cast<const std::int8_t*>(nullptr), 32,
                                                  static_cast<const std::int8_t*>(nullptr), 64, 0,
                                                  static_cast<std::int32_t*>(nullptr), 64, nullptr);
  });
  CHECK(lda.find("lda") != std::string::npos);
  CHECK(lda.find('\n') == std::string::npos);
  const std::string ldc = tc::test::thrown_message<std::invalid_argument>([] {
    launch_fp8_per_tensor<Fp8Gemm<tc::E4M3BF16>>(64, 64, 64, 1.0f, static_cast<const __nv_fp8_e4m3*>(nullptr), 64,
                                                 1.0f, static_cast<const __nv_fp8_e4m3*>(nullptr), 64, 1.0f, 0.0f,
                                                 static_cast<__nv_bfloat16*>(nullptr), 32, nullptr);
  });
  CHECK(ldc.find("ldc") != std::string::npos);
  CHECK(ldc.find('\n') == std::string::npos);
}

TEST_CASE("the int8 step passes both checks on one tile, many tiles, ragged shapes and k = 0", "[gpu][gemm]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  for_each_int8([&](auto p) {
    using G = Int8Gemm<decltype(p)>;
    for (auto [alpha, beta] : tc::test::gemm_scales<typename G::Input>()) {
      tc::test::check_launcher<G>(cublas, 192, 256, 128, alpha, beta, 71);          // a tile and a half, one slice
      tc::test::check_launcher<G>(cublas, 17, 33, 65, alpha, beta, 71);             // the padded path (lda = 65)
      tc::test::check_launcher<G>(cublas, 384, 512, 448, alpha, beta, 71, 0, tc::test::Ld::Padded);
    }
    tc::test::check_launcher<G>(cublas, 4095, 4097, 1000, 1, 0, 71);        // k = 1000: lda breaks TMA's rule
    tc::test::check_launcher<G>(cublas, 4095, 4097, 1000, 2, -1, 71, 1008);  // ... or keeps it: TMA clips M, N, K
    tc::test::check_launcher<G>(cublas, 2560, 4352, 640, 1, 0, 71);         // every persistent block takes several
    tc::test::check_launcher<G>(cublas, 256, 256, 0, 1, 2, 71);             // k = 0: C = beta * C
  });
}

TEST_CASE("the fp8 steps pass both checks on one tile, many tiles, ragged shapes and k = 0", "[gpu][gemm]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  for_each_fp8([&](auto gemm) {
    using G = decltype(gemm);
    for (auto [alpha, beta] : {std::pair{1.0, 0.0}, std::pair{0.5, 2.0}}) {
      check_fp8<G>(cublas, 192, 256, 128, alpha, beta);    // a 128-row tile and half of one, one slice
      check_fp8<G>(cublas, 17, 33, 65, alpha, beta);       // the padded path (lda = 65)
      check_fp8<G>(cublas, 384, 512, 448, alpha, beta);    // 3 M tiles of 128 and 3.5 slices
    }
    check_fp8<G>(cublas, 4095, 4097, 1000, 1.0, 0.0);     // k = 1000: the padded path (lda 1000 bytes)
    check_fp8<G>(cublas, 4096, 4096, 1024, 0.5, 2.0);     // TMA, no copies
    check_fp8<G>(cublas, 256, 256, 0, 1.0, 2.0);          // k = 0: C = beta * C
  });
}

TEST_CASE("both steps pass both checks at 8192^3", "[gpu][gemm][large]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  tc::test::check_launcher<Int8Gemm<tc::S8S32>>(cublas, 8192, 8192, 8192, 1, 0, 79);
  tc::test::check_launcher<Int8Gemm<tc::U8S32>>(cublas, 8192, 8192, 8192, 2, -1, 79);
  check_fp8<Fp8Gemm<tc::E4M3BF16>>(cublas, 8192, 8192, 8192, 1.0, 0.0);
  check_fp8<PromotedGemm<tc::E4M3BF16>>(cublas, 8192, 8192, 8192, 1.0, 0.0);
  check_fp8<BlockGemm<tc::E4M3BF16>>(cublas, 8192, 8192, 8192, 1.0, 0.0);
}

TEST_CASE("at 8192^3 the exact checks fail each step with a bug planted in its producer, and step 3 with a "
          "promotion that skips a group",
          "[gpu][gemm][large][mutation]") {
  // PlantedBug::ABoxRepeated (steps 1 and 5, s8 and u8: two 64-row A boxes a tile): the producer asks TMA for the
  // second box of A at the first box's row, so rows 64..127 of every tile get rows 0..63's products.
  // PlantedBug::MiddleSliceTwice (step 3, whose one A box of 128 rows has no second box to repeat): the producer loads
  // the middle K slice of B from the next slice's coordinate. Both exact checks must see each, and the kernel pass
  // with none switched on.
  using tc::test::PlantedBug;
  using tc::test::PlantedBugScope;
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  auto int8_case = [&](auto precision) {
    // tc::test::check_planted_bug_fails's check, with s32 C: the same operands, with the bug and without.
    using P = decltype(precision);
    using In = typename P::Input;
    const tc::GemmProblem p = tc::GemmProblem::tight(tc::Op::T, tc::Op::N, 8192, 8192, 8192, 1.0, 0.0);
    tc::ExactCheck<In, std::int32_t> exact(cublas, p, 97);
    auto run = [&] {
      return exact.run([&](const In* A, const In* B, std::int32_t* C) {
        tc::launch_gemm_any_size<Int8Gemm<P>>(8192, 8192, 8192, 1, A, 8192, B, 8192, 0, C, 8192, nullptr);
      });
    };
    tc::CompareResult planted;
    {
      const PlantedBugScope plant(PlantedBug::ABoxRepeated);
      planted = run();
    }
    const tc::CompareResult correct = run();
    INFO(P::name << " planted: " << planted.summary() << "\ncorrect: " << correct.summary());
    CHECK_FALSE(planted.passed);
    CHECK(correct.passed);
  };
  for_each_int8(int8_case);
  {
    // The planted kernel's failures are the test's point: Catch2 must not count them as failures of this test.
    const tc::Fp8Operands<__nv_fp8_e4m3> op =
        tc::make_fp8_operands<__nv_fp8_e4m3>(8192, 8192, 8192, tc::Fp8Set::Exact, 101);
    const tc::DeviceBuffer<__nv_fp8_e4m3> a(op.a), b(op.b);
    tc::DeviceBuffer<__nv_bfloat16> c(std::size_t(8192) * 8192);
    const tc::GemmReference ref = tc::fp8_reference(cublas, op, 1.0, 0.0, {});
    auto passes = [&](auto gemm, PlantedBug bug) {
      using G = decltype(gemm);
      TC_CHECK(cudaMemset(c.data(), 0xFF, c.bytes()));
      {
        const PlantedBugScope plant(bug);
        launch_fp8_per_tensor<G>(8192, 8192, 8192, 1.0f, a.data(), 8192, op.scale_a, b.data(), 8192, op.scale_b,
                                 0.0f, c.data(), 8192, nullptr);
        TC_CHECK(cudaDeviceSynchronize());  // the launch ran with the bug switched on
      }
      const std::vector<__nv_bfloat16> got = c.download();
      return tc::compare(8192, 8192, 8192, got.data(), 8192, ref, tc::Tolerance::exact_operands<__nv_bfloat16>())
          .passed;
    };
    CHECK_FALSE(passes(Fp8Gemm<tc::E4M3BF16>{}, PlantedBug::ABoxRepeated));
    CHECK(passes(Fp8Gemm<tc::E4M3BF16>{}, PlantedBug::None));
    CHECK_FALSE(passes(PromotedGemm<tc::E4M3BF16>{}, PlantedBug::MiddleSliceTwice));
    // Step 3 with a promotion that skips K group 1 (PlantedBug::PromotionSkipsGroup): every element misses one group.
    CHECK_FALSE(passes(PromotedGemm<tc::E4M3BF16>{}, PlantedBug::PromotionSkipsGroup));
    CHECK(passes(PromotedGemm<tc::E4M3BF16>{}, PlantedBug::None));
  }
}

TEST_CASE("the fp8 accumulator keeps at least the bits the checks assume", "[gpu][probe]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  for (int small_k : {1, 32}) {
    const AccumulatorProbe p = probe_fp8_accumulator(small_k);
    INFO("small product at K index " << small_k << ": " << p.bits_kept() << " bits kept");
    CHECK(p.bits_kept() >= tc::kFp8AccumulatorBits);
    // An fp32 accumulator would hold every sum the probe makes exactly (2^16 +- 2^(16 - g) is an fp32 value up to
    // g = kProbeMaxGap), and bits_kept() would be kProbeMaxGap + 1. The chapter's premise, DeepSeek-V3's finding, is
    // that the fp8 accumulator cuts bits fp32 would keep: the probe must see where.
    CHECK(p.bits_kept() <= kProbeMaxGap);
    // Bits cut below 2^(17 - b) lose every smaller product too: once a gap is inexact, every wider one is. A probe
    // whose verdicts come back exact past the first loss is reading something other than the sum.
    for (int g = p.bits_kept(); g <= kProbeMaxGap; ++g) {
      INFO("gap " << g);
      CHECK_FALSE((p.exact[0][g] && p.exact[1][g]));
    }
  }
}

TEST_CASE("the block quantizer maps each block's largest magnitude to 448 and rounds the rest to nearest", "[fp8]") {
  // 3 x 300 by 300 x 200: ragged K groups (128, 128, 44) and column blocks (128, 72).
  const tc::Fp8Operands<__nv_fp8_e4m3> o =
      tc::make_fp8_block_operands<__nv_fp8_e4m3>(3, 200, 300, tc::Fp8Set::Random, 11);
  REQUIRE(o.block);
  CHECK(o.sa.size() == std::size_t(3) * 3);
  CHECK(o.sb.size() == std::size_t(2) * 3);
  for (int i = 0; i < 3; ++i)
    for (int g = 0; g < 3; ++g) {
      double largest = 0.0;
      for (int l = g * 128; l < std::min(300, g * 128 + 128); ++l)
        largest = std::max(largest, std::fabs(tc::to_double(o.a[std::size_t(i) * 300 + l])));
      CHECK(largest == 448.0);  // the block's amax over its scale, rounded: 448 exactly
    }
  for (int jb = 0; jb < 2; ++jb)
    for (int g = 0; g < 3; ++g) {
      double largest = 0.0;
      for (int j = jb * 128; j < std::min(200, jb * 128 + 128); ++j)
        for (int l = g * 128; l < std::min(300, g * 128 + 128); ++l)
          largest = std::max(largest, std::fabs(tc::to_double(o.b[std::size_t(j) * 300 + l])));
      CHECK(largest == 448.0);
    }
  // Saturation: a value past the largest finite one (a scale smaller than amax / 448) becomes 448, not NaN.
  CHECK(tc::to_double(tc::ElementTraits<__nv_fp8_e4m3>::from_double(449.0 * 1.5)) == 448.0);
}

TEST_CASE("cuBLASLt's fp8 GEMM computes what the chapter's checks expect: per-tensor scales with and without fast "
          "accumulation, and block scales read where tc/layouts/block_scale.hpp puts them",
          "[gpu][yardstick]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  const tc::CublasLtHandle lt;
  using Fp8 = __nv_fp8_e4m3;
  for (auto [m, n, k] : {std::tuple{256, 384, 512}, std::tuple{4096, 4096, 1024}}) {
    for (tc::Fp8Scaling scaling : {tc::Fp8Scaling::PerTensor, tc::Fp8Scaling::Block}) {
      const tc::Fp8Operands<Fp8> o = scaling == tc::Fp8Scaling::Block
                                         ? tc::make_fp8_block_operands<Fp8>(m, n, k, tc::Fp8Set::Exact, 13)
                                         : tc::make_fp8_operands<Fp8>(m, n, k, tc::Fp8Set::Exact, 13);
      const tc::DeviceBuffer<Fp8> a(o.a), b(o.b);
      const tc::DeviceBuffer<float> sa(scaling == tc::Fp8Scaling::Block ? o.sa : std::vector<float>{o.scale_a});
      const tc::DeviceBuffer<float> sb(scaling == tc::Fp8Scaling::Block ? o.sb : std::vector<float>{o.scale_b});
      const tc::GemmReference ref = tc::fp8_reference(cublas, o, 1.0, 0.0, {});
      tc::DeviceBuffer<__nv_bfloat16> c(std::size_t(m) * n);
      for (tc::Fp8Accumulation acc : {tc::Fp8Accumulation::Exact, tc::Fp8Accumulation::Fast}) {
        // cuBLASLt (13.0, SM 9.0) answers block scales with fast accumulation CUBLAS_STATUS_NOT_SUPPORTED: the
        // chapter times step 4 against its exact mode alone.
        if (scaling == tc::Fp8Scaling::Block && acc == tc::Fp8Accumulation::Fast) continue;
        const tc::CublasLtFp8Matmul<Fp8, __nv_bfloat16> plan(lt, m, n, k, k, k, m, 1.0f, 0.0f, sa.data(), sb.data(),
                                                             scaling, acc);
        INFO(m << "x" << n << "x" << k << (scaling == tc::Fp8Scaling::Block ? " block" : " per-tensor")
                << (acc == tc::Fp8Accumulation::Fast ? ", fast" : ", exact") << ": " << plan.refusal());
        REQUIRE(plan.algorithms() > 0);
        TC_CHECK(cudaMemset(c.data(), 0xFF, c.bytes()));
        plan.run(0, a.data(), b.data(), c.data());
        const std::vector<__nv_bfloat16> got = c.download();
        const tc::CompareResult r =
            tc::compare(m, n, k, got.data(), m, ref, tc::Tolerance::exact_operands<__nv_bfloat16>());
        INFO(r.summary());
        CHECK(r.passed);
      }
    }
  }
}

TEST_CASE("the block-scaled step passes both checks on one tile, many tiles, ragged shapes and k = 0", "[gpu][gemm]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  auto each = [&](auto gemm) {
    using G = decltype(gemm);
    for (auto [alpha, beta] : {std::pair{1.0, 0.0}, std::pair{0.5, 2.0}}) {
      check_fp8<G>(cublas, 128, 256, 128, alpha, beta);   // one tile, one K group
      check_fp8<G>(cublas, 17, 33, 256, alpha, beta);     // C and A's scales through copies (m = 17)
      check_fp8<G>(cublas, 384, 640, 512, alpha, beta);   // 3 x 2.5 tiles (a cluster over the edge of M), 4 groups
    }
    check_fp8<G>(cublas, 4095, 4097, 1024, 1.0, 0.0);    // the issue's ragged shape
    check_fp8<G>(cublas, 2560, 4352, 640, 0.5, 2.0);     // every persistent block takes several tiles
    check_fp8<G>(cublas, 256, 256, 0, 1.0, 2.0);         // k = 0: C = beta * C
  };
  each(BlockGemm<tc::E4M3BF16>{});
  each(BlockGemm<tc::E4M3F32>{});
}

TEST_CASE("the block-scaled launcher rejects K off the 128 grid and scale tensors of the wrong shape in one line",
          "[errors]") {
  using Tile = BlockScaledTile<>;
  const __nv_fp8_e4m3* none = nullptr;
  for (const auto& [k_, ld_sa_, ld_sb_, what] : {std::tuple{1000, 64, 8, "k"}, std::tuple{1024, 63, 8, "ld_sa"},
                                                   std::tuple{1024, 64, 7, "ld_sb"}}) {
    const int k = k_, ld_sa = ld_sa_, ld_sb = ld_sb_;  // copies a lambda may capture (C++17)
    const std::string message = tc::test::thrown_message<std::invalid_argument>([&] {
      launch_fp8_block_scaled<Tile, __nv_bfloat16>(64, 64, k, 1.0f, none, k, nullptr, ld_sa, none, k, nullptr, ld_sb,
                                                   0.0f, nullptr, 64, nullptr);
    });
    INFO(message);
    CHECK(message.find(what) != std::string::npos);
    CHECK(message.find('\n') == std::string::npos);
  }
}

TEST_CASE("at 8192^3 the exact check fails the block-scaled step with a wrong B block scale, a skipped promotion, "
          "A's scales applied to the wrong rows or a B slice loaded twice, and passes it untouched",
          "[gpu][gemm][large][mutation]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  using Fp8 = __nv_fp8_e4m3;
  const tc::Fp8Operands<Fp8> op = tc::make_fp8_block_operands<Fp8>(8192, 8192, 8192, tc::Fp8Set::Exact, 103);
  const Fp8DeviceOperands<Fp8> d(op);
  tc::DeviceBuffer<__nv_bfloat16> c(std::size_t(8192) * 8192);
  const tc::GemmReference ref = tc::fp8_reference(cublas, op, 1.0, 0.0, {});
  using tc::test::PlantedBug;
  auto passes = [&](PlantedBug bug) {
    TC_CHECK(cudaMemset(c.data(), 0xFF, c.bytes()));
    {
      const tc::test::PlantedBugScope plant(bug);
      launch_fp8_block_scaled<Step4Tile, __nv_bfloat16>(8192, 8192, 8192, 1.0f, d.a.data(), 8192, d.sa.data(),
                                                        op.ld_sa(), d.b.data(), 8192, d.sb.data(), op.ld_sb(), 0.0f,
                                                        c.data(), 8192, nullptr);
      TC_CHECK(cudaDeviceSynchronize());  // the launch ran with the bug switched on
    }
    const std::vector<__nv_bfloat16> got = c.download();
    const tc::CompareResult r =
        tc::compare(8192, 8192, 8192, got.data(), 8192, ref, tc::Tolerance::exact_operands<__nv_bfloat16>());
    INFO((bug == PlantedBug::None ? "untouched: " : "planted: ") << r.summary());
    return r.passed;
  };
  CHECK_FALSE(passes(PlantedBug::BScaleWrongBlock));
  CHECK_FALSE(passes(PlantedBug::PromotionSkipsGroup));
  CHECK_FALSE(passes(PlantedBug::AScaleWrongRow));
  CHECK_FALSE(passes(PlantedBug::MiddleSliceTwice));  // the producer's bug, as in step 3
  CHECK(passes(PlantedBug::None));
}

TEST_CASE("the random set's statistical bound holds the promoted step, and fails step 1's unpromoted sum at "
          "K = 16384",
          "[gpu][gemm][large][mutation]") {
  // At K = 16384 the promoted bound (interval 128) sits sqrt(16384 / 128) = 11 times below the unpromoted one: step 3
  // must pass it, and step 1, which keeps the whole sum in the fp8 accumulator (no promotion), must not. D is fp32: a bf16 D's rounding (u_out RMS(ref)) would outweigh the accumulator's error at
  // this K and hide the difference the test is about.
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  using Fp8 = __nv_fp8_e4m3;
  const int m = 1024, n = 1024, k = 16384;
  const tc::Fp8Operands<Fp8> op = tc::make_fp8_operands<Fp8>(m, n, k, tc::Fp8Set::Random, 107);
  const Fp8DeviceOperands<Fp8> d(op);
  const tc::GemmReference ref = tc::fp8_reference(cublas, op, 1.0, 0.0, {});
  using Promoted = PromotedGemm<tc::E4M3F32>;
  const double bound = fp8_rms_bound<Promoted>(op, ref, 1.0, measured_bits());
  tc::DeviceBuffer<float> c(std::size_t(m) * n);
  auto rms_error = [&](auto gemm) {
    launch_fp8_per_tensor<decltype(gemm)>(m, n, k, 1.0f, d.a.data(), k, op.scale_a, d.b.data(), k, op.scale_b, 0.0f,
                                          c.data(), m, nullptr);
    const std::vector<float> got = c.download();
    return tc::compare(m, n, k, got.data(), m, ref, tc::fp8_unpromoted_tolerance<float>()).rms_error;
  };
  const double promoted = rms_error(Promoted{});
  const double unpromoted = rms_error(Fp8Gemm<tc::E4M3F32>{});
  INFO("rms error: promoted " << promoted << ", without promotion " << unpromoted << "; the promoted bound " << bound
                              << " (" << measured_bits() << " bits); the unpromoted one "
                              << tc::fp8_statistical_rms_bound(k, k, measured_bits(), 1.0, tc::fp8_rms_of_products(op),
                                                               0.0, 0.0));
  CHECK(promoted <= bound);
  CHECK(unpromoted > bound);
}

TEST_CASE("the GPU block quantizer writes the host quantizer's codes and scales, bit for bit", "[gpu][quantizer]") {
  // Blocks of magnitudes 2^-8 .. 2^8 (the random set's spread and more), a ragged last column block (n = 200) and
  // rows that are not a multiple of the kernel's 8 (m = 300): every code and scale must be the host's, whose rounding
  // and saturation the host tests check against cvt's.
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const int m = 300, n = 200, k = 384;
  std::vector<float> a(std::size_t(m) * k), b(std::size_t(k) * n), e(std::size_t(m + n) * 3);
  tc::fill_random(a, 5, tc::Fill::Real);
  tc::fill_random(b, 6, tc::Fill::Real);
  tc::fill_random_integers(e, 7, 8);
  std::vector<__nv_bfloat16> a16(a.size()), b16(b.size());
  for (int i = 0; i < m; ++i)
    for (int l = 0; l < k; ++l) {
      const std::size_t at = std::size_t(i) * k + l;
      a16[at] = __float2bfloat16(a[at] * std::ldexp(1.0f, int(e[std::size_t(i) * 3 + l / 128])));
      a[at] = __bfloat162float(a16[at]);  // the values the GPU reads
    }
  for (int j = 0; j < n; ++j)
    for (int l = 0; l < k; ++l) {
      const std::size_t at = std::size_t(j) * k + l;
      b16[at] = __float2bfloat16(b[at] * std::ldexp(1.0f, int(e[std::size_t(m + j / 128) * 3 + l / 128])));
      b[at] = __bfloat162float(b16[at]);
    }
  tc::Fp8Operands<__nv_fp8_e4m3> host;
  host.m = m, host.n = n, host.k = k;
  tc::fp8_quantize_blocks(a, b, host);
  const tc::DeviceBuffer<__nv_bfloat16> da(a16), db(b16);
  tc::DeviceBuffer<__nv_fp8_e4m3> qa(a.size()), qb(b.size());
  tc::DeviceBuffer<float> sa(host.sa.size()), sb(host.sb.size());
  quantize_blocks(da.data(), db.data(), m, n, k, qa.data(), sa.data(), qb.data(), sb.data(), nullptr);
  TC_CHECK(cudaDeviceSynchronize());
  const std::vector<__nv_fp8_e4m3> ga = qa.download(), gb = qb.download();
  int differ = 0;
  for (std::size_t i = 0; i < ga.size(); ++i) differ += tc::fp8_bits(ga[i]) != tc::fp8_bits(host.a[i]);
  for (std::size_t i = 0; i < gb.size(); ++i) differ += tc::fp8_bits(gb[i]) != tc::fp8_bits(host.b[i]);
  CHECK(differ == 0);
  CHECK(sa.download() == host.sa);
  CHECK(sb.download() == host.sb);
  const std::string k_off = tc::test::thrown_message<std::invalid_argument>(
      [&] { quantize_blocks(da.data(), db.data(), m, n, 100, qa.data(), sa.data(), qb.data(), sb.data(), nullptr); });
  CHECK(k_off.find("multiple of 128") != std::string::npos);
}

TEST_CASE("the statistical bound scales as sqrt(k I), and the RMS of the products is that of the dequantized ones",
          "[fp8]") {
  // The bound's promotion term: 2^-(bits - 1) |alpha| RMS(ab) sqrt(k I), I clamped to 1 .. k; the output's apart.
  const double base = tc::fp8_statistical_rms_bound(16384, 128, 14, 1.0, 1.0, 0.0, 0.0);
  CHECK(base == std::ldexp(1.0, -13) * std::sqrt(16384.0 * 128.0));
  const double unpromoted = tc::fp8_statistical_rms_bound(16384, 16384, 14, 1.0, 1.0, 0.0, 0.0);
  CHECK(unpromoted == Approx(base * std::sqrt(128.0)));  // I = k: sqrt(16384 / 128) = 11.3 times the promoted bound
  CHECK(tc::fp8_statistical_rms_bound(16384, 0, 14, 1.0, 1.0, 0.0, 0.0) == std::ldexp(1.0, -13) * 128.0);  // I = 1
  CHECK(tc::fp8_statistical_rms_bound(64, 128, 14, 1.0, 1.0, 0.0, 0.0) == std::ldexp(1.0, -13) * 64.0);  // I <= k
  CHECK(tc::fp8_statistical_rms_bound(16384, 128, 14, -2.0, 1.0, 3.0, 0x1p-8) == 2.0 * base + 3.0 * 0x1p-8);
  // RMS(ab) over every (i, j, l), against the definition, with block scales that differ along K and N.
  const tc::Fp8Operands<__nv_fp8_e4m3> o =
      tc::make_fp8_block_operands<__nv_fp8_e4m3>(5, 130, 256, tc::Fp8Set::Random, 17);
  double sum = 0.0;
  for (int i = 0; i < o.m; ++i)
    for (int j = 0; j < o.n; ++j)
      for (int l = 0; l < o.k; ++l) sum += std::pow(o.a_value(i, l) * o.b_value(l, j), 2);
  CHECK(tc::fp8_rms_of_products(o) == Approx(std::sqrt(sum / (5.0 * 130 * 256))).epsilon(1e-12));
}

TEST_CASE("the error-against-K figure draws each step's errors in both panels, one point a K", "[figure]") {
  std::vector<ErrorAtK> points;
  for (int k = kErrorSweepFirstK; k <= kErrorSweepLastK; k *= 2) {
    ErrorAtK p;
    p.k = k;
    p.unpromoted = {1e-6 * k / 512, 0.01 * k / 512};  // grows with K, as the fp8 accumulator's error does
    p.promoted = {1e-7, 0.001};
    points.push_back(p);
  }
  const std::string svg = error_vs_k_svg(points);
  CHECK(svg.rfind("<svg", 0) == 0);
  std::size_t polylines = 0;
  for (std::size_t at = svg.find("<polyline"); at != std::string::npos; at = svg.find("<polyline", at + 1)) {
    ++polylines;
    const std::size_t from = svg.find("points=\"", at) + 8, to = svg.find('"', from);
    const std::string coords = svg.substr(from, to - from);
    CHECK(std::count(coords.begin(), coords.end(), ',') == int(points.size()));
  }
  CHECK(polylines == 4);  // two steps in two panels
}

TEST_CASE("the committed figures are what tools/figures.hpp draws", "[figures]") {
  tc::test::check_committed_figures(chapter_figures(), TC_FIGURES_DIR,
                                    "build/<preset>/09_fp8_int8_wgmma/09_figures --out docs/figures");
}
