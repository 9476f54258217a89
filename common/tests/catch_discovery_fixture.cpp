// A fixture for the guard test cmake:broken_test_names_are_caught (cmake/tests/check_discovery_guards.cmake), never
// registered by discovery itself: one case whose name holds an unbalanced '[', the name that once made Catch2 2's
// discovery register 104 host tests as one ctest test that ran nothing, between two plain ones. Built without the
// name check that every registered test executable has (tc_check_test_names), which the guard runs on it instead.
#include "tc_test/catch.hpp"

TEST_CASE("a first case", "[fixture]") { CHECK(true); }
TEST_CASE("reals in [-1, 1)", "[fixture]") { CHECK(true); }
TEST_CASE("a last case", "[fixture]") { CHECK(true); }
