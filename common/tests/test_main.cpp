#include "tc/main.hpp"
#include "tc_test/catch.hpp"

#include <filesystem>
#include <string>

TEST_CASE("run_main maps what escapes a chapter's body to the documented exit codes", "[main]") {
  CHECK(tc::run_main([] { return tc::kExitOk; }) == 0);
  CHECK(tc::run_main([] { return tc::kExitMismatch; }) == 1);
  CHECK(tc::run_main([]() -> int { throw tc::UsageError("--m must be >= 1"); }) == tc::kExitUsage);
  CHECK(tc::run_main([]() -> int { throw std::invalid_argument("lda too small"); }) == tc::kExitUsage);
  CHECK(tc::run_main([]() -> int { throw tc::CudaError("out of memory"); }) == tc::kExitCudaError);
  CHECK(tc::run_main([]() -> int { throw std::runtime_error("anything else"); }) == tc::kExitCudaError);
  CHECK(tc::run_main([]() -> int { throw std::bad_alloc(); }) == tc::kExitCudaError);
}

TEST_CASE("the figure and CSV writers create a missing folder, and name the reason when they cannot", "[main]") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "tc_test_main" / "a" / "b";
  std::filesystem::remove_all(dir.parent_path().parent_path());
  const auto paths = tc::write_figures(dir.string(), {{"x.svg", "<svg/>"}});
  REQUIRE(paths.size() == 1);
  CHECK(std::filesystem::exists(paths[0]));
  // A folder below a regular file cannot exist: one line naming the folder and why.
  const std::string msg =
      tc::test::thrown_message<tc::UsageError>([] { tc::write_figures("/dev/null/figures", {{"x.svg", ""}}); });
  CHECK(msg.find("cannot create the folder /dev/null/figures: ") == 0);
  CHECK(msg.find('\n') == std::string::npos);
  std::filesystem::remove_all(dir.parent_path().parent_path());
}
