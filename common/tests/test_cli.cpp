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
      .add_string("out", "", "output folder");
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
}
