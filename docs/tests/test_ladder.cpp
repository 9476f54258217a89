// The benchmark ladder's two halves agree: what tc::append_bench_csv writes, ladder.hpp reads and renders.
#include "ladder.hpp"

#include "tc/bench_csv.hpp"
#include "tc_test/catch.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace {
std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

TEST_CASE("ladder rows written by the chapters read back and render as the docs' tables", "[ladder]") {
  const std::string path = (std::filesystem::temp_directory_path() / "tc_ladder_test.csv").string();
  std::remove(path.c_str());
  { std::ofstream(path) << "# command: test\n"; }
  // 06 and 04's s8 row have both yardsticks; cuBLASLt has no u8 -> s32 GEMM here (the driver times u8 as s8, but a
  // row without it must render as "-").
  tc::append_bench_csv(path, {{"06", "4 tuned", "f16->f32", "TN", {1024, 1024, 1024}, 0.01, 0.005, true, 0.004},
                              {"04", "skew 16", "s8->s32", "TN", {1024, 1024, 1024}, 0.02, 0.01, true, 0.008}});
  tc::append_bench_csv(path, {{"04", "skew 16", "u8->s32", "TN", {1024, 1024, 1024}, 0.02, 0.01, false}});
  const std::string text = read_all(path);
  CHECK(text.find(tc::kBenchCsvHeader) == text.rfind(tc::kBenchCsvHeader));  // the header once, not per append
  CHECK(text.find("0.0100,214.7,50.0,0.0080,268.4,40.0,PASS") != std::string::npos);
  CHECK(text.find("0.0100,214.7,50.0,-,-,-,FAIL") != std::string::npos);

  const ladder::Ladder l = ladder::parse_ladder(text);
  REQUIRE(l.rows.size() == 3);
  CHECK(l.has_lt);
  CHECK(l.provenance == std::vector<std::string>{"# command: test"});
  CHECK(l.rows[0].tflops == Approx(214.7));  // 2 * 1024^3 / 0.01 ms, rounded to 0.1 as written
  CHECK(l.rows[0].cublas_tflops == Approx(429.5));
  CHECK(l.rows[0].lt_tflops == Approx(536.9));
  CHECK(l.rows[0].pct == Approx(50.0));
  CHECK(l.rows[2].lt_tflops == 0.0);
  CHECK(l.rows[2].verdict == "FAIL");

  const std::vector<std::string> table = ladder::ladder_table(l, "04");
  // provenance, header, s8, u8, the s8 yardsticks, u8's cuBLASLt row ("-": u8's gemmEx row is s8's, not repeated),
  // three lines of notes
  REQUIRE(table.size() == 10);
  CHECK(table[1] == "chapter kernel             precision  layout   1024: TFLOP/s %gemmEx");
  CHECK(table[2] == "04      skew 16            s8->s32    TN                107.4   50.0%");
  CHECK(table[4] == "04      cublasGemmEx       s8->s32    TN                214.7  100.0%");
  CHECK(table[5] == "04      cuBLASLt best-of-8 s8->s32    TN                268.4  125.0%");
  CHECK(table[6] == "04      cuBLASLt best-of-8 u8->s32    TN                    -       -");
  CHECK(table[9].find("int8 other than TN") != std::string::npos);
  CHECK(ladder::ladder_table(l, "all").size() == 13);  // and 06: its kernel and both yardsticks
  CHECK_THROWS(ladder::ladder_table(l, "03"));

  const std::string svg = ladder::ladder_svg(l, "all");
  CHECK(svg.rfind("<svg", 0) == 0);
  CHECK(svg.find("chapter 06: TFLOP/s") != std::string::npos);
  CHECK(svg.find("skew 16  u8-&gt;s32 TN") != std::string::npos);  // text is escaped
  CHECK(svg.find("cuBLASLt best-of-8  f16-&gt;f32 TN") != std::string::npos);
  CHECK(svg.find("stroke-dasharray=\"2,3\"") != std::string::npos);  // cuBLASLt's line, dotted
  std::remove(path.c_str());
}

TEST_CASE("a ladder CSV from before the cuBLASLt columns still renders, and says it has none", "[ladder]") {
  const ladder::Ladder l = ladder::parse_ladder(
      "# command: old\nchapter,kernel,precision,layout,m,n,k,ms,tflops,cublas_ms,cublas_tflops,pct_cublas,verdict\n"
      "06,4 tuned,f16->f32,TN,1024,1024,1024,0.0100,214.7,0.0050,429.5,50.0,PASS\n");
  CHECK_FALSE(l.has_lt);
  const std::vector<std::string> table = ladder::ladder_table(l, "06");
  REQUIRE(table.size() == 7);  // provenance, header, the kernel, cublasGemmEx, three lines of notes
  CHECK(table[3].find("cublasGemmEx") != std::string::npos);
  CHECK(table[6] == "This run predates the cuBLASLt column: it timed cublasGemmEx alone.");
  // A row of the other format after the header is an error naming the line.
  CHECK_THROWS(ladder::parse_ladder("chapter,kernel,precision,layout,m,n,k,ms,tflops,cublas_ms,cublas_tflops,"
                                    "pct_cublas,verdict\n06,k,f16->f32,TN,1,1,1,1,1,-,-,-,-,-,-,PASS\n"));
}

TEST_CASE("malformed ladder CSV is an error naming the line", "[ladder]") {
  const std::string why = tc::test::thrown_message<std::runtime_error>([] { ladder::parse_ladder("06,x\n"); });
  CHECK(why.find("ladder CSV line 1:") == 0);
  CHECK_THROWS(ladder::parse_ladder("# only provenance\n"));
  CHECK_THROWS(tc::bench_csv_line({"06", "a,b", "f16->f32", "TN", {1, 1, 1}, 1.0, 1.0, true}));
}

TEST_CASE("the README's summary picks each chapter's best kernel by % of cublasGemmEx at the largest shared size",
          "[ladder]") {
  // Chapter 06 ran 1024, 2048 and 4096; chapter 08 also 8192, which not every chapter ran, so the summary shows 2048
  // and 4096. At 4096, 06's "3" is faster in TFLOP/s but "4" has the higher share of its own cublasGemmEx (its row's
  // yardstick ran slower), so "4" is the best; 08 has no cuBLASLt algorithm, so its % LtBest is "-".
  const std::string header = "chapter,kernel,precision,layout,m,n,k,ms,tflops,cublas_ms,cublas_tflops,pct_cublas,"
                             "lt_best_ms,lt_best_tflops,pct_lt_best,verdict\n";
  const ladder::Ladder l = ladder::parse_ladder(
      "# command: test\n" + header +
      "06,3 swz,f16->f32,TN,1024,1024,1024,1,10.0,1,20.0,50.0,1,25.0,40.0,PASS\n"
      "06,3 swz,f16->f32,TN,2048,2048,2048,1,30.0,1,60.0,50.0,1,75.0,40.0,PASS\n"
      "06,3 swz,f16->f32,TN,4096,4096,4096,1,60.0,1,100.0,60.0,1,120.0,50.0,PASS\n"
      "06,4 tuned,f16->f32,TN,1024,1024,1024,1,11.0,1,20.0,55.0,1,25.0,44.0,PASS\n"
      "06,4 tuned,f16->f32,TN,2048,2048,2048,1,33.0,1,60.0,55.0,1,75.0,44.0,PASS\n"
      "06,4 tuned,f16->f32,TN,4096,4096,4096,1,56.0,1,80.0,70.0,1,112.0,50.0,PASS\n"
      "08,5 taller,bf16->bf16,TN,2048,2048,2048,1,90.0,1,100.0,90.0,-,-,-,PASS\n"
      "08,5 taller,bf16->bf16,TN,4096,4096,4096,1,101.0,1,100.0,101.0,-,-,-,PASS\n"
      "08,5 taller,bf16->bf16,TN,8192,8192,8192,1,99.0,1,100.0,99.0,-,-,-,PASS\n");
  const std::vector<std::string> best = ladder::ladder_best(l);
  REQUIRE(best.size() == 6);  // provenance, header, a row per chapter, two lines of notes
  CHECK(best[1] == "chapter best kernel          precision  layout   2048: TFLOP/s %gemmEx %LtBest   4096: TFLOP/s "
                   "%gemmEx %LtBest");
  CHECK(best[2] == "06      4 tuned              f16->f32   TN                 33.0   55.0%   44.0%             56.0   "
                   "70.0%   50.0%");
  CHECK(best[3] == "08      5 taller             bf16->bf16 TN                 90.0   90.0%       -            101.0  "
                   "101.0%       -");
  // A u8 row is timed against the libraries' s8 GEMM (they have no u8 one): never the best, however high its share.
  const std::vector<std::string> int8 = ladder::ladder_best(ladder::parse_ladder(
      header + "09,5 int8,s8->s32,TN,4096,4096,4096,1,100.0,1,100.0,100.0,1,100.0,100.0,PASS\n"
               "09,5 int8,u8->s32,TN,4096,4096,4096,1,120.0,1,100.0,120.0,1,100.0,120.0,PASS\n"));
  CHECK(int8[1].find("09      5 int8               s8->s32") == 0);
  CHECK_THROWS(ladder::ladder_best(ladder::parse_ladder(
      header + "06,a,f16->f32,TN,1024,1024,1024,1,1,1,1,100.0,1,1,100.0,PASS\n"
               "08,b,f16->f32,TN,2048,2048,2048,1,1,1,1,100.0,1,1,100.0,PASS\n")));  // no size both ran
}
