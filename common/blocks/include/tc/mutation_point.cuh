// tc::mutation_point: where the tests may change a kernel's behaviour on purpose, and nothing else may.
//
// Every check in this project must be able to fail. For the exact check, a test proves it by running a kernel with a
// bug planted in its own code (a box of A loaded twice, a K slice counted twice, a scale from the wrong row, a
// partial sum added twice) and requiring the check to reject the result. The bugs themselves live in the tests
// (common/tests/include/tc_test/planted_bugs.cuh); a kernel only marks the places a bug may sit:
//   const int box = tc::mutation_point(tc::MutationSite::ABox, r);
// In every binary a learner runs, mutation_point returns `value` and compiles to nothing. In the test binaries only
// (compiled with TC_MUTATION_HOOK, cmake/TcTesting.cmake) it hands `value` and its context to the bug a test switched
// on (tc::test::PlantedBugScope), which may return another value at that site; with no bug switched on it returns
// `value` there too. A site names a place in a kernel, not a bug.
// Preconditions: device code. Errors: none.
#pragma once

#include "tc/mutation_site.hpp"

#if defined(TC_MUTATION_HOOK)
#include "tc_test/planted_bugs.cuh"  // the bugs, and tc::detail::planted_value: in the test binaries only
#endif

namespace tc {

// `value`, unchanged, in every binary but the tests; there, what the bug switched on makes of it at `site`.
template <typename T>
__device__ __forceinline__ T mutation_point(MutationSite site, T value, int context = 0, int context2 = 0) {
#if defined(TC_MUTATION_HOOK)
  return detail::planted_value(site, value, context, context2);
#else
  (void)site;
  (void)context;
  (void)context2;
  return value;
#endif
}

}  // namespace tc
