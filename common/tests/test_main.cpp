#include "tc/main.hpp"
#include "tc_test/catch.hpp"

TEST_CASE("run_main maps what escapes a chapter's body to the documented exit codes", "[main]") {
  CHECK(tc::run_main([] { return tc::kExitOk; }) == 0);
  CHECK(tc::run_main([] { return tc::kExitMismatch; }) == 1);
  CHECK(tc::run_main([]() -> int { throw tc::UsageError("--m must be >= 1"); }) == tc::kExitUsage);
  CHECK(tc::run_main([]() -> int { throw std::invalid_argument("lda too small"); }) == tc::kExitUsage);
  CHECK(tc::run_main([]() -> int { throw tc::CudaError("out of memory"); }) == tc::kExitCudaError);
  CHECK(tc::run_main([]() -> int { throw std::runtime_error("anything else"); }) == tc::kExitCudaError);
  CHECK(tc::run_main([]() -> int { throw std::bad_alloc(); }) == tc::kExitCudaError);
}
