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
  tc::append_bench_csv(path, {{"06", "4 tuned", "f16->f32", "TN", {1024, 1024, 1024}, 0.01, 0.005, true},
                              {"04", "skew 16", "s8->s32", "TN", {1024, 1024, 1024}, 0.02, 0.01, true}});
  tc::append_bench_csv(path, {{"04", "skew 16", "u8->s32", "TN", {1024, 1024, 1024}, 0.02, 0.01, false}});
  const std::string text = read_all(path);
  CHECK(text.find(tc::kBenchCsvHeader) == text.rfind(tc::kBenchCsvHeader));  // the header once, not per append

  const ladder::Ladder l = ladder::parse_ladder(text);
  REQUIRE(l.rows.size() == 3);
  CHECK(l.provenance == std::vector<std::string>{"# command: test"});
  CHECK(l.rows[0].tflops == Approx(214.7));  // 2 * 1024^3 / 0.01 ms, rounded to 0.1 as written
  CHECK(l.rows[0].cublas_tflops == Approx(429.5));
  CHECK(l.rows[0].pct == Approx(50.0));
  CHECK(l.rows[2].verdict == "FAIL");

  const std::vector<std::string> table = ladder::ladder_table(l, "04");
  REQUIRE(table.size() == 6);  // provenance, header, s8, u8, one cuBLAS row (u8's is s8's: not repeated), note
  CHECK(table[1] == "chapter kernel          precision  layout   1024: TFLOP/s %cuBLAS");
  CHECK(table[2] == "04      skew 16         s8->s32    TN                107.4   50.0%");
  CHECK(table[4] == "04      cuBLAS          s8->s32    TN                214.7  100.0%");
  CHECK(ladder::ladder_table(l, "all").size() == 8);
  CHECK_THROWS(ladder::ladder_table(l, "03"));

  const std::string svg = ladder::ladder_svg(l, "all");
  CHECK(svg.rfind("<svg", 0) == 0);
  CHECK(svg.find("chapter 06: TFLOP/s") != std::string::npos);
  CHECK(svg.find("skew 16  u8-&gt;s32 TN") != std::string::npos);  // text is escaped
  std::remove(path.c_str());
}

TEST_CASE("malformed ladder CSV is an error naming the line", "[ladder]") {
  const std::string why = tc::test::thrown_message<std::runtime_error>([] { ladder::parse_ladder("06,x\n"); });
  CHECK(why.find("ladder CSV line 1:") == 0);
  CHECK_THROWS(ladder::parse_ladder("# only provenance\n"));
  CHECK_THROWS(tc::bench_csv_line({"06", "a,b", "f16->f32", "TN", {1, 1, 1}, 1.0, 1.0, true}));
}
