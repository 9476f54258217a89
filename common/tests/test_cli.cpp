#include "tc/cli.hpp"
#include "tc_test/catch.hpp"

#include <vector>

namespace {
tc::Cli make_cli() {
  tc::Cli cli("prog", "test program");
  cli.add_int("m", 16, "rows")
      .add_int("seed", 1, "seed", 0)
      .add_real("alpha", 1.0, "scale")
      .add_choice("shape", "all", {"16x16x16", "32x8x16", "all"}, "shape")
      .add_flag("verbose", "more output")
      .add_string("out", "", "output folder")
      .add_shapes("sizes", "1024,4096", "problem sizes");
  return cli;
}
// Parses the arguments after the program name; returns the UsageError message, or "" if parsing succeeded.
std::string parse_error(std::vector<const char*> args) {
  args.insert(args.begin(), "prog");
  tc::Cli cli = make_cli();
  try {
    cli.parse(static_cast<int>(args.size()), args.data());
  } catch (const tc::UsageError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("Cli parses both --name value and --name=value", "[cli]") {
  tc::Cli cli = make_cli();
  const char* argv[] = {"prog",    "--m",       "48",     "--alpha=-2.5", "--shape",
                        "32x8x16", "--verbose", "--seed=+7", "--out",        "figures/x y"};
  REQUIRE(cli.parse(10, argv));
  CHECK(cli.get_string("out") == "figures/x y");
  CHECK(cli.get_int("m") == 48);
  CHECK(cli.get_real("alpha") == -2.5);
  CHECK(cli.get_choice("shape") == "32x8x16");
  CHECK(cli.get_flag("verbose"));
  CHECK(cli.get_int("seed") == 7);
}

TEST_CASE("Cli keeps defaults for options not given", "[cli]") {
  tc::Cli cli = make_cli();
  const char* argv[] = {"prog"};
  REQUIRE(cli.parse(1, argv));
  CHECK(cli.get_int("m") == 16);
  CHECK(cli.get_real("alpha") == 1.0);
  CHECK(cli.get_choice("shape") == "all");
  CHECK_FALSE(cli.get_flag("verbose"));
  CHECK(cli.get_string("out").empty());
  CHECK(cli.get_shapes("sizes") == std::vector<tc::GemmShape>{{1024, 1024, 1024}, {4096, 4096, 4096}});
}

TEST_CASE("integer lists take comma-separated integers in range and reject anything else in one line", "[cli]") {
  CHECK(tc::parse_int_list("tokens", "1,16,8192") == std::vector<int>{1, 16, 8192});
  CHECK(tc::parse_int_list("tokens", "7") == std::vector<int>{7});
  CHECK(tc::parse_int_list("k", "0,3", 0, 3) == std::vector<int>{0, 3});
  for (const char* bad : {"", ",", "1,", ",1", "0", "-4", "1e3", "16 ", "abc", "2147483648", "4,x"}) {
    INFO("'" << bad << "'");
    const std::string msg = tc::test::thrown_message<tc::UsageError>([&] { tc::parse_int_list("tokens", bad); });
    CHECK(msg.rfind("--tokens expects integers in [1, 2147483647], comma-separated; got '", 0) == 0);
    CHECK(msg.find('\n') == std::string::npos);
  }
  CHECK_THROWS_AS(tc::parse_int_list("k", "4", 0, 3), tc::UsageError);
}

TEST_CASE("GEMM shape lists take S and MxNxK items and reject anything else in one line", "[cli]") {
  CHECK(tc::parse_gemm_shapes("s", "17x33x65,8") == std::vector<tc::GemmShape>{{17, 33, 65}, {8, 8, 8}});
  CHECK(tc::parse_gemm_shapes("s", "2147483647") == std::vector<tc::GemmShape>{{2147483647, 2147483647, 2147483647}});
  // k = 0 is a legal GEMM (C = beta * C), which the chapters' tests cover; m = 0 or n = 0 is refused.
  CHECK(tc::parse_gemm_shapes("s", "256x512x0") == std::vector<tc::GemmShape>{{256, 512, 0}});
  for (const char* bad : {"", ",", "16,", "0", "-4", "16x16", "16x16x16x16", "16xx16x16", "1e3", "16 ", "2147483648",
                          "16x0x16", "0x16x16", "16x16x-1", "4096,abc"}) {
    INFO("'" << bad << "'");
    const std::string msg = tc::test::thrown_message<tc::UsageError>([&] { tc::parse_gemm_shapes("sizes", bad); });
    CHECK(msg.rfind("--sizes expects sizes like 4096 or 17x33x65 (M, N >= 1, K >= 0), comma-separated; got '", 0) == 0);
    CHECK(msg.find('\n') == std::string::npos);
  }
  const char* argv[] = {"prog", "--sizes", "48x80x96"};
  tc::Cli cli = make_cli();
  REQUIRE(cli.parse(3, argv));
  CHECK(cli.get_shapes("sizes") == std::vector<tc::GemmShape>{{48, 80, 96}});
  CHECK(parse_error({"--sizes", "4x4"}) ==
        "--sizes expects sizes like 4096 or 17x33x65 (M, N >= 1, K >= 0), comma-separated; got '4x4'");
}

TEST_CASE("Cli rejects bad input with one line naming the problem", "[cli]") {
  CHECK(parse_error({"--n", "3"}).find("unknown option '--n'") != std::string::npos);
  CHECK(parse_error({"--m", "12x"}).find("--m expects an integer, got '12x'") != std::string::npos);
  CHECK(parse_error({"--m", "1e3"}).find("expects an integer") != std::string::npos);
  CHECK(parse_error({"--m", ""}).find("expects an integer") != std::string::npos);
  CHECK(parse_error({"--m", "0"}).find("--m must be in [1, ") != std::string::npos);
  CHECK(parse_error({"--m", "-16"}).find("--m must be in [1, ") != std::string::npos);
  CHECK(parse_error({"--m", "99999999999"}).find("must be in") != std::string::npos);
  CHECK(parse_error({"--m"}).find("--m needs a value") != std::string::npos);
  CHECK(parse_error({"--alpha", "nan"}).find("expects a finite number") != std::string::npos);
  CHECK(parse_error({"--alpha", "inf"}).find("expects a finite number") != std::string::npos);
  CHECK(parse_error({"--alpha", "1.5.2"}).find("expects a finite number") != std::string::npos);
  CHECK(parse_error({"--shape", "4x4x4"}).find("--shape must be one of 16x16x16, 32x8x16, all") != std::string::npos);
  CHECK(parse_error({"--verbose=1"}).find("takes no value") != std::string::npos);
  CHECK(parse_error({"--out="}).find("--out needs a non-empty value") != std::string::npos);
  CHECK(parse_error({"16"}).find("unexpected argument '16'") != std::string::npos);
  CHECK(parse_error({"--"}).find("unexpected argument") != std::string::npos);
  CHECK(parse_error({"-m", "4"}).find("unexpected argument '-m'") != std::string::npos);
  CHECK(parse_error({"--m", "12x"}).find('\n') == std::string::npos);
}

TEST_CASE("Cli --help prints usage and asks the caller to stop", "[cli]") {
  tc::Cli cli = make_cli();
  const char* argv[] = {"prog", "--help"};
  CHECK_FALSE(cli.parse(2, argv));
  const std::string usage = cli.usage();
  CHECK(usage.find("--shape 16x16x16|32x8x16|all") != std::string::npos);
  CHECK(usage.find("(default: 16)") != std::string::npos);
  // An integer's minimum is shown where it is more than the usual 1, e.g. --repeats's 20.
  tc::Cli repeats("prog", "test");
  repeats.add_int("repeats", 30, "timed launches", 20);
  CHECK(repeats.usage().find("(default: 30; at least 20)") != std::string::npos);
}
