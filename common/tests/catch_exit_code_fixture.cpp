// A fixture for the guard test cmake:a_failing_test_never_reads_as_skipped (cmake/tests/check_catch_exit_codes.cmake),
// never registered as a test itself: test cases whose count of failed checks equals a skip code (77, Catch2 2's skip
// exit; 4, Catch2 3's), which ctest must report as Failed, and one real skip, which it must report as Skipped.
#include "tc_test/catch.hpp"

namespace {
void fail_checks(int count) {
  for (int i = 0; i < count; ++i) CHECK(i < 0);
}
}  // namespace

TEST_CASE("77 failed checks", "[fixture]") { fail_checks(77); }
TEST_CASE("4 failed checks", "[fixture]") { fail_checks(4); }
TEST_CASE("1 failed check", "[fixture]") { fail_checks(1); }
TEST_CASE("a skip", "[fixture]") { tc::test::skip_test("skipped: the fixture's own skip"); }
TEST_CASE("a pass", "[fixture]") { CHECK(true); }
