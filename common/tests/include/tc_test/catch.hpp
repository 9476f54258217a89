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
// copy in `dir` is missing or differs, naming the command that rewrites them, and for every text of one that runs past
// its width (tc::svg::texts_past_the_edge): the chapters' figure tests.
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
#include "tc/svg.hpp"

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

// Fails the test where a GPU is present but CUDA cannot use it (DeviceInfo::cuda_failure: a broken driver must not
// read as "no GPU"); skips it where there is no GPU, or its SM is below min_sm (exact: not min_sm exactly, for sm_90a
// code, which runs on SM 9.0 alone).
inline DeviceInfo require_gpu(int min_sm, bool exact = false) {
  DeviceInfo device = query_device();
  if (!device.cuda_failure.empty()) FAIL(device.cuda_failure);
  std::optional<std::string> why = unsuitable_reason(device, min_sm);
  if (!why && exact && device.sm != min_sm)
    why = "this GPU, " + device.name + ", is SM " + compute_capability(device.sm) + ", and that code runs on no other";
  if (why) skip_test("skipped: needs " + sm_requirement(min_sm, exact) + "; " + *why);
  return device;
}

// As require_gpu, for sm_90a code: the GPU must be SM `sm` exactly.
inline DeviceInfo require_exact_gpu(int sm) { return require_gpu(sm, true); }

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
    {
      INFO(dir << "/" << f.file << " is stale or missing: run " << regenerate);
      CHECK(committed.str() == f.svg);
    }
    // A figure whose document is narrower than a caption cuts it at the right edge.
    for (const std::string& cut : tc::svg::texts_past_the_edge(f.svg)) {
      INFO(f.file << ": a text runs past the figure's width, at x = " << cut);
      CHECK(cut.empty());
    }
  }
}

}  // namespace tc::test
