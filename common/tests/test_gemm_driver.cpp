// Host tests of the GEMM driver (tc/gemm_driver.hpp) and the per-kernel tile contracts (tc/tile_contract.hpp): the
// results table, the ladder rows, the common flags and their errors. The GPU side (run()) is exercised by every
// chapter binary and its sanitizer tests.
#include "tc/gemm_driver.hpp"
#include "tc/tile_contract.hpp"
#include "tc_test/catch.hpp"

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

tc::DriverRow row(const char* kernel, double ms, double cublas_ms, bool passed = true) {
  tc::DriverRow r;
  r.shape = {1024, 1024, 1024};
  r.kernel = kernel;
  r.type = "f16->f32";
  r.layout = "TN";
  r.ms = ms;
  r.cublas_ms = cublas_ms;
  r.passed = passed;
  return r;
}

// Runs GemmDriver::parse on `args` after the program name; returns the options, or throws what parse throws.
tc::RunOptions parse(tc::DriverConfig config, std::vector<const char*> args) {
  args.insert(args.begin(), "prog");
  tc::GemmDriver driver(std::move(config));
  if (!driver.parse(int(args.size()), const_cast<char**>(args.data()))) throw std::logic_error("--help was given");
  return driver.options();
}

}  // namespace

TEST_CASE("the results table has one line per kernel, % of both yardsticks from the times, and '-' where one has none",
          "[driver]") {
  const tc::RunOptions o;
  // 2*1024^3 FLOP in 1 ms is 2.1 TFLOP/s; cublasGemmEx at 0.5 ms makes the kernel 50% of it; cuBLASLt's first
  // candidate at 0.4 ms is 5.4 TFLOP/s, and its best at 0.25 ms 8.6, of which the kernel is 25%.
  tc::DriverRow fast = row("fast", 1.0, 0.5);
  fast.lt_first_ms = 0.4;
  fast.lt_best_ms = 0.25;
  const std::string table = tc::format_results({fast, row("refused", 2.0, -1.0, false)}, o, 0.0);
  CHECK(table.find("== results: C = alpha*op(A)*op(B) + beta*C, alpha 1, beta 0; median of 30 launches after 5 "
                   "warm-up ==") == 0);
  CHECK(table.find("ms  TFLOP/s  cublasGemmEx TFLOP/s  % cublasGemmEx  cuBLASLt 1st TFLOP/s  cuBLASLt best-of-8 "
                   "TFLOP/s  % cuBLASLt best-of-8") != std::string::npos);
  CHECK(table.find("1024x1024x1024  fast     f16->f32  TN  1.0000      2.1                   4.3           50.0%"
                   "                   5.4                         8.6                 25.0%") != std::string::npos);
  CHECK(table.find("refused  f16->f32  TN  2.0000      1.1                     -               -                     -"
                   "                           -                     -") != std::string::npos);
  CHECK(table.find("FAIL") != std::string::npos);
  CHECK(table.find("% ceiling") == std::string::npos);
}

TEST_CASE("the results table shows % of a measured ceiling, the copies' time, and TOPS for integer rows",
          "[driver]") {
  tc::RunOptions o;
  o.rest_ms = 1500;
  tc::DriverRow padded = row("step", 1.0, 1.0);
  padded.ms_with_copies = 1.25;
  const std::string ceiling = tc::format_results({padded}, o, 4.2949673);  // 2^31 FLOP / 1 ms / 1e12 / 0.5
  CHECK(ceiling.find(", each timing after 1500 ms idle ==") != std::string::npos);
  CHECK(ceiling.find("% ceiling") != std::string::npos);
  CHECK(ceiling.find("50.0%") != std::string::npos);
  CHECK(ceiling.find("1.2500") != std::string::npos);
  tc::DriverRow integer = row("skew 16", 1.0, 1.0);
  integer.integer = true;
  CHECK(tc::format_results({integer}, tc::RunOptions{}, 0.0).find("cublasGemmEx TOPS") != std::string::npos);
  // A datasheet peak: its own column, and the legend names its source.
  const std::string peak = tc::format_results({padded}, o, 0.0, 8.5899346, "a datasheet (its source)");
  CHECK(peak.find("% peak") != std::string::npos);
  CHECK(peak.find("25.0%") != std::string::npos);
  CHECK(peak.find("% peak: of a datasheet (its source)") != std::string::npos);
  CHECK(peak.find("% ceiling") == std::string::npos);
}

TEST_CASE("ladder rows carry the chapter, the table's names, the kernel's time and both yardsticks'", "[driver]") {
  tc::DriverRow r = row("4 tuned", 2.0, 1.5);
  r.lt_first_ms = 1.45;
  r.lt_best_ms = 1.4;
  const std::vector<tc::BenchRow> bench = tc::ladder_rows("06", {r});
  REQUIRE(bench.size() == 1);
  CHECK(bench[0].chapter == "06");
  CHECK(bench[0].kernel == "4 tuned");
  CHECK(bench[0].precision == "f16->f32");
  CHECK(bench[0].layout == "TN");
  CHECK(bench[0].shape == tc::GemmShape{1024, 1024, 1024});
  CHECK(bench[0].ms == 2.0);
  CHECK(bench[0].cublas_ms == 1.5);
  CHECK(bench[0].lt_best_ms == 1.4);  // the best of 8; the ladder leaves the first to the chapter's own table
  CHECK(bench[0].passed);
}

TEST_CASE("the driver's flags: sizes, the statistic, and one-line errors", "[driver][cli]") {
  tc::DriverConfig list{{"prog", "06", 0, {}}, "title", "summary"};
  list.rest_flag = true;
  const tc::RunOptions o = parse(list, {"--sizes", "64,17x33x65", "--alpha", "2", "--rest-ms", "0", "--seed", "7"});
  REQUIRE(o.sizes.size() == 2);
  CHECK(o.sizes[1] == tc::GemmShape{17, 33, 65});
  CHECK(o.alpha == 2.0);
  CHECK(o.rest_ms == 0);
  CHECK(o.seed == 7);
  CHECK_FALSE(o.bench);
  CHECK(parse(list, {}).rest_ms == 1500);  // a tool (no --bench): its rest is its default
  CHECK(parse(list, {"--sizes", "4096x4096x0"}).sizes == std::vector<tc::GemmShape>{{4096, 4096, 0}});  // C = beta C
  CHECK(tc::test::thrown_message<tc::UsageError>([&] { parse(list, {"--sizes", "0"}); }).find("--sizes") == 0);
  CHECK(tc::test::thrown_message<tc::UsageError>([&] { parse(list, {"--m", "64"}); }) ==
        "unknown option '--m' (see --help)");
  CHECK(tc::test::thrown_message<tc::UsageError>([&] { parse(list, {"--bench"}); }) ==
        "unknown option '--bench' (see --help)");
  tc::DriverConfig no_rest{{"prog", "02", 0, {}}, "title", "summary"};
  CHECK(tc::test::thrown_message<tc::UsageError>([&] { parse(no_rest, {"--rest-ms", "0"}); }) ==
        "unknown option '--rest-ms' (see --help)");
  CHECK(tc::test::thrown_message<tc::UsageError>([&] { parse(list, {"--repeats", "3"}); }).find("--repeats") !=
        std::string::npos);

  std::vector<const char*> args = {"prog", "--alpha", "1.5"};
  tc::GemmDriver driver(list);
  REQUIRE(driver.parse(int(args.size()), const_cast<char**>(args.data())));
  CHECK(tc::test::thrown_message<tc::UsageError>([&] { driver.require_integer_scales("s8"); }) ==
        "--alpha and --beta must be int32 integers for s8 (the scale type of an int32 GEMM, as in cuBLAS)");
}

TEST_CASE("the bench flag runs the recorded benchmark, the default run the demonstration, and flags given win",
          "[driver][cli]") {
  tc::DriverConfig chapter{{"prog", "07", 0, {}}, "title", "summary"};
  chapter.default_sizes = "4096";
  chapter.rest_flag = true;
  chapter.default_rest_ms = 1500;
  chapter.bench_flag = true;
  chapter.bench_sizes = "4096,8192";
  const tc::RunOptions demo = parse(chapter, {});
  CHECK_FALSE(demo.bench);
  CHECK(demo.sizes == std::vector<tc::GemmShape>{{4096, 4096, 4096}});
  CHECK(demo.rest_ms == 0);
  const tc::RunOptions bench = parse(chapter, {"--bench"});
  CHECK(bench.bench);
  CHECK(bench.sizes == std::vector<tc::GemmShape>{{4096, 4096, 4096}, {8192, 8192, 8192}});
  CHECK(bench.rest_ms == 1500);
  const tc::RunOptions mixed = parse(chapter, {"--bench", "--sizes", "256", "--rest-ms", "10"});
  CHECK(mixed.sizes == std::vector<tc::GemmShape>{{256, 256, 256}});
  CHECK(mixed.rest_ms == 10);
  CHECK(parse(chapter, {"--rest-ms", "20"}).rest_ms == 20);
  // The chapter's own checks run inside parse, before the run header: their error is the first line printed.
  std::vector<const char*> args = {"prog", "--bench"};
  tc::GemmDriver driver(chapter);
  CHECK(tc::test::thrown_message<tc::UsageError>([&] {
          driver.parse(int(args.size()), const_cast<char**>(args.data()), [] { throw tc::UsageError("bad flag"); });
        }) == "bad flag");
}

TEST_CASE("an output path that cannot be written is refused at parse, before the run", "[driver][cli]") {
  tc::DriverConfig config{{"prog", "09", 0, {}}, "title", "summary"};
  CHECK(tc::test::thrown_message<tc::UsageError>([&] { parse(config, {"--csv", "/proc/no/such/rows.csv"}); })
            .find("/proc/no/such") != std::string::npos);
  CHECK(tc::test::thrown_message<tc::UsageError>([&] { parse(config, {"--svg", "/proc/no/such"}); })
            .find("/proc/no/such") != std::string::npos);
}

TEST_CASE("a size too large for any machine is refused when its kernels are added, with no GPU asked", "[driver]") {
  tc::DriverConfig config{{"prog", "02", 0, {}}, "title", "summary"};
  auto add_at = [&](const char* sizes) {
    std::vector<const char*> args = {"prog", "--sizes", sizes};
    tc::GemmDriver driver(config);
    REQUIRE(driver.parse(int(args.size()), const_cast<char**>(args.data())));
    driver.add(tc::DriverGroup<float, float>{"f32", tc::Op::N, tc::Op::N, {}});
  };
  // 300000^3 in fp32: terabytes of host operands and references.
  CHECK(tc::test::thrown_message<tc::TooLargeError>([&] { add_at("64,300000"); })
            .find("prog 300000x300000x300000 needs ") == 0);
  // 10^9 cubed: more bytes than 64 bits count.
  CHECK(tc::test::thrown_message<tc::TooLargeError>([&] { add_at("1000000000"); }).find("2^64 bytes") !=
        std::string::npos);
  add_at("64");  // fits
}

TEST_CASE("the --type flag offers the chapter's precisions and all, and runs_type asks only for ones the chapter lists",
          "[driver][cli]") {
  const tc::DriverConfig config{{"prog", "03", 0, {}}, "title", "summary", "svg", {"f16", "s8"}, "precision"};
  auto driver_for = [&](std::vector<const char*> args) {
    args.insert(args.begin(), "prog");
    auto driver = std::make_unique<tc::GemmDriver>(config);
    REQUIRE(driver->parse(int(args.size()), const_cast<char**>(args.data())));
    return driver;
  };
  const auto all = driver_for({});
  CHECK(all->runs_type("f16"));
  CHECK(all->runs_type("s8"));
  const auto s8 = driver_for({"--type", "s8"});
  CHECK_FALSE(s8->runs_type("f16"));
  CHECK(s8->runs_type("s8"));
  CHECK(tc::test::thrown_message<std::invalid_argument>([&] { s8->runs_type("bf16"); }) ==
        "prog: --type has no precision \"bf16\"");
  CHECK(tc::test::thrown_message<tc::UsageError>([&] { parse(config, {"--type", "bf16"}); }) ==
        "--type must be one of f16, s8, all; got 'bf16'");
  // A chapter that lists no precisions has no --type flag.
  tc::DriverConfig untyped = config;
  untyped.types.clear();
  CHECK(tc::test::thrown_message<tc::UsageError>([&] { parse(untyped, {"--type", "f16"}); }) ==
        "unknown option '--type' (see --help)");
}

TEST_CASE("a chapter tool's flags: --size must be a multiple of its tile, before any GPU is asked for",
          "[driver][cli]") {
  auto parse_tool = [](std::vector<const char*> args) {
    args.insert(args.begin(), "tool");
    tc::SquareTool tool({"prog", "06", 0, {}}, {"tool", "summary", "kernels", 8192, 256, "the largest tile", true});
    return tool.parse(int(args.size()), const_cast<char**>(args.data()));
  };
  CHECK(tc::test::thrown_message<tc::UsageError>([&] { parse_tool({"--size", "1000"}); }) ==
        "--size must be a multiple of 256, the largest tile");
  CHECK(tc::test::thrown_message<tc::UsageError>([&] { parse_tool({"--size", "128"}); }).find("--size") !=
        std::string::npos);
  CHECK(tc::test::thrown_message<tc::UsageError>([&] { parse_tool({"--repeats", "5"}); }).find("--repeats") !=
        std::string::npos);
  CHECK_FALSE(parse_tool({"--help"}));
}

TEST_CASE("each kernel's contract holds it to its own instructions' rules, not WMMA's", "[padding]") {
  alignas(256) static __half h[64];
  alignas(256) static float f[64];
  const tc::TileContract wmma{{16, 16, 16}, tc::kWmmaOperandRule, tc::kWmmaOperandRule};
  const tc::TileContract vector{{16, 16, 16}, tc::kVector16OperandRule, tc::kScalarF32OperandRule};
  // A 16-byte aligned A: fine for 16-byte copies, not for load_matrix_sync.
  CHECK(*tc::tile_contract_problem(wmma, 16, 16, 16, h + 8, 16, h, 16, f, 16) ==
        "A must be 32-byte aligned for load/store_matrix_sync");
  CHECK_FALSE(tc::tile_contract_problem(vector, 16, 16, 16, h + 8, 16, h, 16, f, 16));
  // An fp32 C at any float address and any ld keeps scalar stores' rule.
  CHECK_FALSE(tc::tile_contract_problem(vector, 16, 16, 16, h, 16, h, 16, f + 1, 17));
  CHECK(*tc::tile_contract_problem(wmma, 16, 16, 16, h, 16, h, 16, f, 17) ==
        "ld of C is 17 elements; load/store_matrix_sync needs a multiple of 4 (16 bytes)");
  // An ld of 12 halves (24 bytes) breaks 16-byte copies.
  CHECK(*tc::tile_contract_problem(vector, 16, 16, 16, h, 16, h, 12, f, 16) ==
        "ld of B is 12 elements; a 16-byte global copy needs a multiple of 8 (16 bytes)");
  // A TMA store writes whole 16-byte pieces of a column: m = 17 fp32 (68 bytes) with ldc = 24 would write rows 17-19
  // of C's padding, so it goes through padded copies; m = 20 (80 bytes) keeps the rule.
  const tc::TileContract tma_store{{1, 1, 1}, tc::kTmaOperandRule, tc::kTmaStoreOperandRule};
  CHECK(*tc::tile_contract_problem(tma_store, 17, 16, 16, h, 16, h, 16, f, 24) ==
        "m = 17 rows of C are 68 bytes; a TMA store writes whole 16-byte pieces of a column, so it needs a multiple "
        "of 16");
  CHECK_FALSE(tc::tile_contract_problem(tma_store, 20, 16, 16, h, 16, h, 16, f, 24));
}
