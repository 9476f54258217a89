// The one place tests meet Catch2's version differences (2.13 from Debian 12, 3.x elsewhere).
//
// Tests include this instead of a Catch2 header, and call tc::test::require_gpu(min_sm) at the start of every test
// case tagged [gpu]. Without a suitable GPU that reports the case as skipped in the way ctest recognises for the
// installed version (cmake/TcTesting.cmake sets the matching SKIP_RETURN_CODE):
//   Catch2 3.x: SKIP(), after which the process exits 4;
//   Catch2 2.x: no skip exists, so print the reason and exit 77.
// thrown_message<E>(f) returns what() of the E that f throws (and fails the test if f throws nothing), which
// replaces matchers whose names differ between the versions.
// check_committed_figures(figures, dir, regenerate) fails for every generated figure ({file, svg}) whose committed
// copy in `dir` is missing or differs, naming the command that rewrites them: the chapters' figure staleness tests.
#pragma once

#if TC_CATCH2_MAJOR >= 3
#include <catch2/catch_approx.hpp>
#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
using Catch::Approx;  // Catch2 2.x spells it Approx at global scope
#else
#include <catch2/catch.hpp>
#endif

#include "tc/device.hpp"
#include "tc/exit_codes.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace tc::test {

// Reports the test as skipped: Catch2 3's SKIP, or, under Catch2 2 (which has none), the message and exit code 77,
// which ctest's SKIP_RETURN_CODE counts as skipped.
inline void skip_test(const std::string& message) {
#if TC_CATCH2_MAJOR >= 3
  SKIP(message);
#else
  std::printf("%s\n", message.c_str());
  std::fflush(stdout);
  std::exit(kExitNoGpu);
#endif
}

inline DeviceInfo require_gpu(int min_sm) {
  DeviceInfo device = query_device();
  if (auto why = unsuitable_reason(device, min_sm)) {
    const std::string message = "skipped: needs a GPU of SM >= " + compute_capability(min_sm) + "; " + *why;
    skip_test(message);
  }
  return device;
}

// As require_gpu, for sm_90a code: the GPU must be SM `sm` exactly (tc::require_exact_sm says why).
inline DeviceInfo require_exact_gpu(int sm) {
  DeviceInfo device = require_gpu(sm);
  if (device.sm != sm) {
    const std::string message = "skipped: sm_" + std::to_string(sm) + "a code runs on SM " + compute_capability(sm) +
                                " alone; this GPU is SM " + compute_capability(device.sm);
    skip_test(message);
  }
  return device;
}

template <typename E, typename F>
std::string thrown_message(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  FAIL("expected an exception, none was thrown");
  return {};
}

template <typename Figures>
void check_committed_figures(const Figures& figures, const std::string& dir, const std::string& regenerate) {
  for (const auto& f : figures) {
    std::ifstream in(dir + "/" + f.file);
    std::ostringstream committed;
    committed << in.rdbuf();
    INFO(dir << "/" << f.file << " is stale or missing: run " << regenerate);
    CHECK(committed.str() == f.svg);
  }
}

}  // namespace tc::test
