// Chapter 03 tests. Host: the lda/ldb rules of each op, the row-major wrapper's swap (against an independent row-major
// reference), the address maps, and the load model (wmma_loads.hpp) against the measured trace. GPU: all
// four ops for f16 and s8 over the issue's shapes and 1024^3, through the chapter's two checks (integer operands
// exactly, random ones against fp64, the same transa/transb) and bit for bit against cuBLAS with the same
// transa/transb on the integer operands; the row-major wrapper for all four ops.
#include "chapter_config.hpp"  // tc::chapter::kMinSm, from tc_add_chapter in the top-level CMakeLists.txt
#include "figures.hpp"
#include "row_major_gemm.cuh"
#include "wmma_transposed_gemm.cuh"

#include "tc/compare.hpp"
#include "tc/cublas_reference.hpp"
#include "tc/device_buffer.hpp"
#include "tc/gemm_check.hpp"
#include "wmma_loads.hpp"
#include "tc/random.hpp"
#include "tc/reference.hpp"
#include "tc_test/catch.hpp"
#include "tc_test/gemm.hpp"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

// C = alpha * op(A) * op(B) + beta * C with every matrix row-major, straight from the definition: op(A)(i, l) is
// A[i][l] for op N and A[l][i] for op T. Written independently of the column-major code it checks.
template <typename TIn, typename TOut>
std::vector<double> row_major_gemm_by_definition(tc::Op op_a, tc::Op op_b, int m, int n, int k, double alpha,
                                                 const std::vector<TIn>& A, int lda, const std::vector<TIn>& B,
                                                 int ldb, double beta, const std::vector<TOut>& C, int ldc) {
  std::vector<double> D(std::size_t(m) * ldc);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0.0;
      for (int l = 0; l < k; ++l) {
        const double a = tc::to_double(op_a == tc::Op::N ? A[std::size_t(i) * lda + l] : A[std::size_t(l) * lda + i]);
        const double b = tc::to_double(op_b == tc::Op::N ? B[std::size_t(l) * ldb + j] : B[std::size_t(j) * ldb + l]);
        sum += a * b;
      }
      D[std::size_t(i) * ldc + j] =
          alpha * sum + (beta != 0.0 ? beta * tc::to_double(C[std::size_t(i) * ldc + j]) : 0.0);
    }
  return D;
}

const std::vector<std::pair<tc::Op, tc::Op>> kOps = {
    {tc::Op::N, tc::Op::N}, {tc::Op::N, tc::Op::T}, {tc::Op::T, tc::Op::N}, {tc::Op::T, tc::Op::T}};

std::string op_pair(tc::Op a, tc::Op b) { return std::string(tc::op_name(a)) + tc::op_name(b); }

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// Host tests

TEST_CASE("each op's lda and ldb rule is cuBLAS's, and the launcher enforces it", "[ld]") {
  const int m = 48, n = 80, k = 96;
  // (op_a, op_b) -> the smallest legal lda and ldb: the row count of A and B as stored.
  const std::vector<std::tuple<tc::Op, tc::Op, int, int>> rules = {
      {tc::Op::N, tc::Op::N, m, k}, {tc::Op::N, tc::Op::T, m, n}, {tc::Op::T, tc::Op::N, k, k},
      {tc::Op::T, tc::Op::T, k, n}};
  for (auto [op_a, op_b, min_lda, min_ldb] : rules) {
    INFO(op_pair(op_a, op_b));
    CHECK_NOTHROW(tc::validate_gemm_arguments(op_a, op_b, m, n, k, min_lda, min_ldb, m, m));
    CHECK_THROWS_AS(tc::validate_gemm_arguments(op_a, op_b, m, n, k, min_lda - 1, min_ldb, m, m),
                    std::invalid_argument);
    CHECK_THROWS_AS(tc::validate_gemm_arguments(op_a, op_b, m, n, k, min_lda, min_ldb - 1, m, m),
                    std::invalid_argument);
    // The layout tags say the same: op(A) m x k stored as the tag, op(B) k x n.
    const bool ta = op_a == tc::Op::T, tb = op_b == tc::Op::T;
    CHECK(min_lda == (ta ? tc::RowMajor::min_ld(m, k) : tc::ColMajor::min_ld(m, k)));
    CHECK(min_ldb == (tb ? tc::RowMajor::min_ld(k, n) : tc::ColMajor::min_ld(k, n)));
  }
  STATIC_REQUIRE(WmmaTransposedGemm<tc::WmmaF16, tc::RowMajor, tc::ColMajor>::kOpA == tc::Op::T);
  STATIC_REQUIRE(WmmaTransposedGemm<tc::WmmaF16, tc::RowMajor, tc::ColMajor>::kOpB == tc::Op::N);
  CHECK(tc::test::thrown_message<std::invalid_argument>([] {
          launch_wmma_transposed_gemm<tc::WmmaF16>(tc::Op::T, tc::Op::N, 48, 80, 96, 1.0f, nullptr, 95, nullptr, 96,
                                                   0.0f, nullptr, 48);
        }) == "lda = 95 is too small: it must be >= max(1, k) = 96 for op(A) = T (column-major storage)");
  const std::string msg = tc::test::thrown_message<std::invalid_argument>([] {
    launch_wmma_transposed_gemm<tc::WmmaS8>(tc::Op::N, tc::Op::T, 48, 80, 96, 1, nullptr, 48, nullptr, 79, 0,
                                            nullptr, 48);
  });
  CHECK(msg == "ldb = 79 is too small: it must be >= max(1, n) = 80 for op(B) = T (column-major storage)");
  CHECK(msg.find('\n') == std::string::npos);
}

TEST_CASE("the row-major wrapper swaps operands, sizes and ops exactly as C^T = op(B)^T * op(A)^T", "[row_major]") {
  static const __half a[1] = {}, b[1] = {};
  constexpr GemmCall<__half> r{tc::Op::T, tc::Op::N, 3, 4, 2, a, 7, b, 9, 11};
  constexpr GemmCall<__half> c = row_major_as_column_major(r);
  STATIC_REQUIRE(c.op_a == tc::Op::N);  // op(B) becomes the first operand, with its own op
  STATIC_REQUIRE(c.op_b == tc::Op::T);
  STATIC_REQUIRE(c.m == 4);  // m and n swap, k stays
  STATIC_REQUIRE(c.n == 3);
  STATIC_REQUIRE(c.k == 2);
  STATIC_REQUIRE(c.A == b);
  STATIC_REQUIRE(c.lda == 9);
  STATIC_REQUIRE(c.B == a);
  STATIC_REQUIRE(c.ldb == 7);
  STATIC_REQUIRE(c.ldc == 11);
  // Swapping twice is the identity.
  STATIC_REQUIRE(row_major_as_column_major(c).A == a);
  STATIC_REQUIRE(row_major_as_column_major(c).m == 3);

  // And it computes the right thing: the column-major reference on the swapped call equals the row-major product
  // taken from its definition, for all four ops, with padded leading dimensions and alpha/beta.
  const int m = 5, n = 3, k = 4;
  for (auto [op_a, op_b] : kOps) {
    INFO(op_pair(op_a, op_b));
    const int lda = (op_a == tc::Op::N ? k : m) + 2, ldb = (op_b == tc::Op::N ? n : k) + 1, ldc = n + 3;
    std::vector<float> A(std::size_t(lda) * (op_a == tc::Op::N ? m : k)),
        B(std::size_t(ldb) * (op_b == tc::Op::N ? k : n));
    std::vector<float> C(std::size_t(ldc) * m);
    tc::fill_random(A, 1, tc::Fill::Integer);
    tc::fill_random(B, 2, tc::Fill::Integer);
    tc::fill_random(C, 3, tc::Fill::Integer);
    const std::vector<double> want =
        row_major_gemm_by_definition(op_a, op_b, m, n, k, 2.0, A, lda, B, ldb, -1.0, C, ldc);
    const GemmCall<float> cc =
        row_major_as_column_major(GemmCall<float>{op_a, op_b, m, n, k, A.data(), lda, B.data(), ldb, ldc});
    std::vector<double> got(want.size());
    tc::reference_gemm(cc.op_a, cc.op_b, cc.m, cc.n, cc.k, 2.0, cc.A, cc.lda, cc.B, cc.ldb, -1.0, C.data(), cc.ldc,
                       got.data(), cc.ldc);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) CHECK(got[std::size_t(i) * ldc + j] == want[std::size_t(i) * ldc + j]);
  }
}

TEST_CASE("the row-major wrapper checks leading dimensions in the caller's own terms", "[row_major]") {
  CHECK_NOTHROW(validate_row_major_gemm_arguments(tc::Op::N, tc::Op::N, 5, 3, 4, 4, 3, 3));
  CHECK_NOTHROW(validate_row_major_gemm_arguments(tc::Op::T, tc::Op::T, 5, 3, 4, 5, 4, 3));
  CHECK(tc::test::thrown_message<std::invalid_argument>(
            [] { validate_row_major_gemm_arguments(tc::Op::N, tc::Op::N, 5, 3, 4, 3, 3, 3); }) ==
        "row-major lda = 3 is too small: it must be >= max(1, k) = 4");
  CHECK(tc::test::thrown_message<std::invalid_argument>(
            [] { validate_row_major_gemm_arguments(tc::Op::T, tc::Op::N, 5, 3, 4, 4, 3, 3); }) ==
        "row-major lda = 4 is too small: it must be >= max(1, m) = 5");
  CHECK(tc::test::thrown_message<std::invalid_argument>(
            [] { validate_row_major_gemm_arguments(tc::Op::N, tc::Op::T, 5, 3, 4, 4, 3, 3); }) ==
        "row-major ldb = 3 is too small: it must be >= max(1, k) = 4");
  CHECK(tc::test::thrown_message<std::invalid_argument>(
            [] { validate_row_major_gemm_arguments(tc::Op::N, tc::Op::N, 5, 3, 4, 4, 3, 2); }) ==
        "row-major ldc = 2 is too small: it must be >= max(1, n) = 3");
  CHECK(tc::test::thrown_message<std::invalid_argument>(
            [] { validate_row_major_gemm_arguments(tc::Op::N, tc::Op::N, -1, 3, 4, 4, 3, 3); }) ==
        "GEMM sizes must be >= 0, got m = -1, n = 3, k = 4");
}

TEST_CASE("address maps place element (row, col) where the layout tag stores it", "[figures]") {
  // A synthetic 16 x 16 map: lane l, slot s holds (l % 16, 8 * s + l / 16 * 4)... any injective map will do.
  tc::LaneMap fragment(16, 16, 8);
  for (int lane = 0; lane < 32; ++lane)
    for (int slot = 0; slot < 8; ++slot) fragment.at(lane, slot) = {lane % 16, (lane / 16) * 8 + slot};
  const tc::LaneMap col = address_map<tc::ColMajor>(fragment, 16);
  const tc::LaneMap row = address_map<tc::RowMajor>(fragment, 16);
  for (int lane = 0; lane < 32; ++lane)
    for (int slot = 0; slot < 8; ++slot) {
      const tc::Coord e = fragment.at(lane, slot);
      CHECK(col.at(lane, slot) == tc::Coord{e.col, e.row});  // line = column, position = row
      CHECK(row.at(lane, slot) == e);                         // line = row, position = column
    }
  CHECK(col.min_copies() == 1);
  CHECK(col.max_copies() == 1);
  // A wider ld leaves the positions past the tile empty: the tile's lines, not the whole ld, are drawn with data.
  const tc::LaneMap wide = address_map<tc::ColMajor>(fragment, 24);
  CHECK(wide.rows() == 16);
  CHECK(wide.cols() == 24);
  CHECK(wide.copies(0, 20) == 0);
  CHECK(row_major_identity_svg().find("C^T (n x m, ldc)") != std::string::npos);
}

TEST_CASE("the load model's first instruction is what compute-sanitizer saw on the H200", "[loads]") {
  // docs/results/03_wmma_load_trace_sm90.txt: "== trace: <fragment> <type> <layout>, ld <ld> ==", a header row, then
  // "lane line element bytes" for the 32 lanes of the first load instruction (docs/tools/wmma_load_trace.sh).
  const std::string path = std::string(TC_SOURCE_DIR) + "/docs/results/03_wmma_load_trace_sm90.txt";
  std::ifstream in(path);
  REQUIRE(in);
  std::map<std::string, std::vector<LaneRead>> traces;
  std::string line, current;
  while (std::getline(in, line)) {
    if (line.rfind("== trace: ", 0) == 0) {
      current = line.substr(10, line.find(',') - 10);
    } else if (!current.empty() && !line.empty() && std::isdigit(static_cast<unsigned char>(line[0]))) {
      std::istringstream row(line);
      int lane = -1;
      LaneRead r;
      row >> lane >> r.line >> r.element >> r.bytes;
      REQUIRE(lane == int(traces[current].size()));
      traces[current].push_back(r);
    }
  }
  REQUIRE(traces.size() == 8);
  for (const auto& [name, trace] : traces) {
    INFO(name);
    REQUIRE(trace.size() == 32);
    const bool a = name.find("matrix_a") == 0, f16 = name.find(" f16 ") != std::string::npos;
    const bool row_major = name.find("row_major") != std::string::npos;
    // K runs along matrix_a's lines when it is row_major, along matrix_b's when col_major.
    const WarpRequest first = wmma_load_plan(f16 ? 2 : 1, a == row_major).requests.front();
    for (int lane = 0; lane < 32; ++lane) {
      INFO("lane " << lane);
      CHECK(trace[lane].line == first[lane].line);
      CHECK(trace[lane].element == first[lane].element);
      CHECK(trace[lane].bytes == first[lane].bytes);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// GPU tests

namespace {

struct Case {
  tc::Op op_a, op_b;
  int m, n, k;
  double alpha, beta;
  int pad;  // extra elements per line of storage in A, B and C
};

// Runs the column-major launcher on one case through the chapter's two checks (tc_test/gemm.hpp: integer operands
// exactly, random ones against fp64, the same transa/transb), checks that C's padding rows came back untouched, and
// compares the exact result bit for bit with cuBLAS's own GEMM with the same transa/transb on the same integer
// operands, wherever cuBLAS accepts them.
template <typename P>
void run_case(const Case& cs, std::uint64_t seed) {
  using In = typename P::Input;
  using Acc = typename P::Accumulator;
  const bool ta = cs.op_a == tc::Op::T, tb = cs.op_b == tc::Op::T;
  const tc::GemmProblem p{cs.op_a,       cs.op_b, cs.m, cs.n, cs.k, (ta ? cs.k : cs.m) + cs.pad,
                          (tb ? cs.n : cs.k) + cs.pad, cs.m + cs.pad, cs.alpha, cs.beta};
  auto launch = [&](const In* A, const In* B, Acc* C) {
    launch_wmma_transposed_gemm<P>(p.op_a, p.op_b, p.m, p.n, p.k, Acc(p.alpha), A, p.lda, B, p.ldb, Acc(p.beta), C,
                                   p.ldc);
  };
  const tc::CublasHandle cublas;
  tc::ExactCheck<In, Acc> exact(cublas, p, seed);
  tc::RandomOperands<In, Acc> random(cublas, p, seed + 3);
  const tc::GemmVerdict v = tc::check_gemm(exact, random, launch);
  INFO(P::name << " " << op_pair(cs.op_a, cs.op_b) << " " << cs.m << "x" << cs.n << "x" << cs.k << " alpha "
               << cs.alpha << " beta " << cs.beta << " pad " << cs.pad << "\nexact:  " << v.exact.summary()
               << "\nrandom: " << v.random.summary());
  CHECK(v.passed());
  CHECK(tc::test::padding_untouched(p, exact.last_output(), exact.c_input()));
  CHECK(tc::test::padding_untouched(p, random.last_output(), random.c_input()));

  // cuBLAS itself with the same transa/transb on the exact check's integer operands, into a separate buffer. Where
  // alpha and beta are integers or halves, those results are exact, so where cuBLAS runs the kernel must equal it bit
  // for bit. Other scales (0.3, -1.7) round in the epilogue, and an FMA there rounds once where a multiply and an add
  // round twice: the two may differ in the last bit, and the exact check above is the check. cuBLAS's int8 GEMM
  // refuses some leading dimensions (not multiples of 4); there too the exact reference above is the check.
  if (2.0 * p.alpha != std::trunc(2.0 * p.alpha) || 2.0 * p.beta != std::trunc(2.0 * p.beta)) return;
  const tc::DeviceBuffer<In> d_a(exact.a()), d_b(exact.b());
  tc::DeviceBuffer<Acc> d_cublas(exact.c_input());
  bool accepted = true;
  try {
    tc::cublas_gemm<In, Acc>(cublas, p.op_a, p.op_b, p.m, p.n, p.k, p.alpha, d_a.data(), p.lda, d_b.data(), p.ldb,
                             p.beta, d_cublas.data(), p.ldc, d_cublas.data(), p.ldc);
    TC_CHECK(cudaDeviceSynchronize());
  } catch (const tc::CudaError& e) {
    if (!std::is_same_v<In, std::int8_t>) throw;
    accepted = false;
    UNSCOPED_INFO("cuBLAS int8 refused: " << e.what());
  }
  if (accepted) {
    const std::vector<Acc> want = d_cublas.download(), &got = exact.last_output();
    std::int64_t differ = 0;
    for (int j = 0; j < p.n; ++j)
      for (int i = 0; i < p.m; ++i) {
        const std::size_t e = std::size_t(j) * p.ldc + i;
        differ += !(tc::to_double(got[e]) == tc::to_double(want[e]));  // equal values (+0 == -0); NaN differs
      }
    CHECK(differ == 0);
  }
}

template <typename P>
std::vector<std::pair<double, double>> alpha_betas() {
  if constexpr (std::is_same_v<P, tc::WmmaS8>) return {{1, 0}, {2, -1}};
  else return {{1, 0}, {0.5, 2}};
}

}  // namespace

TEMPLATE_TEST_CASE("all four ops match the reference with the same transa-transb on every shape", "[gpu][ops]",
                   tc::WmmaF16, tc::WmmaS8) {
  tc::test::require_gpu(tc::chapter::kMinSm);
  std::uint64_t seed = 300;
  for (auto [op_a, op_b] : kOps)
    for (auto [m, n, k] : {std::tuple{16, 16, 16}, std::tuple{48, 80, 96}, std::tuple{17, 33, 65}})
      for (auto [alpha, beta] : tc::test::gemm_scales<typename TestType::Input>())
        for (int pad : {0, 8}) run_case<TestType>({op_a, op_b, m, n, k, alpha, beta, pad}, seed++);
}

TEMPLATE_TEST_CASE("all four ops pass both checks and match cuBLAS exactly at 1024 cubed", "[gpu][ops][large]",
                   tc::WmmaF16, tc::WmmaS8) {
  tc::test::require_gpu(tc::chapter::kMinSm);
  std::uint64_t seed = 400;
  for (auto [op_a, op_b] : kOps)
    for (auto [alpha, beta] : alpha_betas<TestType>())
      run_case<TestType>({op_a, op_b, 1024, 1024, 1024, alpha, beta, 0}, seed++);
}

TEMPLATE_TEST_CASE("the row-major wrapper matches the row-major definition for all four ops", "[gpu][row_major]",
                   tc::WmmaF16, tc::WmmaS8) {
  tc::test::require_gpu(tc::chapter::kMinSm);
  using In = typename TestType::Input;
  using Acc = typename TestType::Accumulator;
  std::uint64_t seed = 500;
  for (auto [op_a, op_b] : kOps)
    for (auto [m, n, k] : {std::tuple{48, 80, 96}, std::tuple{17, 33, 65}}) {
      const auto [alpha, beta] = alpha_betas<TestType>().back();
      // Row-major storage: A is m x k (op N) or k x m (op T) with lda >= its column count, plus 8 of padding.
      const int lda = (op_a == tc::Op::N ? k : m) + 8, ldb = (op_b == tc::Op::N ? n : k) + 8, ldc = n + 8;
      std::vector<In> A(std::size_t(lda) * (op_a == tc::Op::N ? m : k)),
          B(std::size_t(ldb) * (op_b == tc::Op::N ? k : n));
      std::vector<Acc> C(std::size_t(ldc) * m);
      tc::fill_random(A, seed++, tc::Fill::Integer);
      tc::fill_random(B, seed++, tc::Fill::Integer);
      tc::fill_random(C, seed++, tc::Fill::Integer);
      const std::vector<double> want =
          row_major_gemm_by_definition(op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
      tc::DeviceBuffer<In> d_a(A), d_b(B);
      tc::DeviceBuffer<Acc> d_c(C);
      launch_wmma_transposed_gemm_row_major<TestType>(op_a, op_b, m, n, k, Acc(alpha), d_a.data(), lda, d_b.data(),
                                                      ldb, Acc(beta), d_c.data(), ldc);
      const std::vector<Acc> got = d_c.download();
      INFO(TestType::name << " row-major " << op_pair(op_a, op_b) << " " << m << "x" << n << "x" << k);
      std::int64_t wrong = 0, padding_changed = 0;
      for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j)
          wrong += tc::to_double(got[std::size_t(i) * ldc + j]) != want[std::size_t(i) * ldc + j];
        for (int j = n; j < ldc; ++j)
          padding_changed +=
              std::memcmp(&got[std::size_t(i) * ldc + j], &C[std::size_t(i) * ldc + j], sizeof(Acc)) != 0;
      }
      CHECK(wrong == 0);  // integer-valued inputs: exact in fp32 and int32
      CHECK(padding_changed == 0);
    }
}
