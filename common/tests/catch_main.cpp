// The main() of every Catch2 test executable here, for Catch2 2.13 and 3.x alike: it exits 1 on any failure, and the
// skip code ctest is told (cmake/TcTesting.cmake) only for a skip.
//
// Why not Catch2's own main: it exits with the number of failed assertions (Catch2 2.x always, 3.3 to 3.7.0 too;
// 3.7.1 and later exit 42), so a [gpu] test with exactly 77 failed checks under Catch2 2, or 4 under Catch2 3.3 to
// 3.7.0, would exit the skip code, and ctest would report a failing GPU test as Skipped. Here:
//   - Catch2 2.x has no skip: tc::test::skip_test prints the reason and exits 77 from inside the test case, so a skip
//     never returns here.
//   - Catch2 3.x: SKIP() ends the test case and returns here; Catch2 returns 4 only where every test case was skipped.
//   - A listener records the totals of the run; if any assertion or test case failed, the exit code is 1, whatever
//     Catch2 returned. Otherwise Catch2's code stands: 0, 4 for a skip (Catch2 3), or what its listing and
//     command-line errors return (catch_discover_tests reads those).
//   - A run that ran no test case exits 1 too: each ctest test runs one case by name, and a name whose filter matches
//     nothing (a registration that discovery broke) must fail, not pass having tested nothing. Catch2 2 returns 0
//     there, Catch2 3 returns 2 unless told otherwise; here both fail alike.
// The guard test cmake:a_failing_test_never_reads_as_skipped (cmake/tests/check_catch_exit_codes.cmake) runs a
// fixture with exactly 77 and exactly 4 failed checks through ctest and requires Failed for both.
// Sources: Catch2 documentation, "Supplying main() yourself" (own-main.md) and "Event Listeners"
// (event-listeners.md); Catch2 3.3.0 release notes (SKIP, exit code 4) and 3.7.1's (failures exit 42).
#if TC_CATCH2_MAJOR >= 3
#include <catch2/catch_session.hpp>
#include <catch2/reporters/catch_reporter_event_listener.hpp>
#include <catch2/reporters/catch_reporter_registrars.hpp>
#else
#define CATCH_CONFIG_RUNNER  // this translation unit holds Catch2 2's implementation, without its main()
#include <catch2/catch.hpp>
#endif

#include <cstdint>
#include <cstdio>

namespace {

bool g_run_ended = false;   // a run (not a listing) took place
bool g_run_failed = false;  // set once the run ends: any failed assertion or test case
bool g_ran_nothing = false;  // set once the run ends: no test case matched the filter

#if TC_CATCH2_MAJOR >= 3
using ListenerBase = Catch::EventListenerBase;
#else
using ListenerBase = Catch::TestEventListenerBase;
#endif

class RunTotals : public ListenerBase {
 public:
  using ListenerBase::ListenerBase;
  void testRunEnded(Catch::TestRunStats const& stats) override {
    g_run_ended = true;
    g_run_failed = stats.totals.assertions.failed > 0 || stats.totals.testCases.failed > 0;
    g_ran_nothing = stats.totals.testCases.total() == 0;  // Catch2 3 counts a skipped case in total() too
  }
};

}  // namespace

CATCH_REGISTER_LISTENER(RunTotals)

int main(int argc, char* argv[]) {
  const int code = Catch::Session().run(argc, argv);
  if (g_run_ended && g_ran_nothing) {
    std::fprintf(stderr, "error: no test case matched the filter, so nothing was tested\n");
    return 1;
  }
  return g_run_failed ? 1 : code;
}
