// The wrong-architecture guard, exercised for real: this binary is built with sm_80 SASS only (CUDA_ARCHITECTURES
// 80-real, no PTX; common/tests/CMakeLists.txt), so on a GPU of any other major version, an H100 or H200 (sm_90)
// among them, tc::require_kernel_image must stop it with its one-line message and exit tc::kExitNoKernelImage (5).
// The ctest test arch_guard:sm80_only_binary_stops_with_exit_5 (cmake/expect_exit_code.cmake) checks both.
// Whether there is anything to catch is decided here from the GPU's SM alone, never from the guard: only where there
// is no GPU, or the GPU runs sm_80 SASS (major version 8), does it say so and exit 77 (Skipped). Anywhere else, a run
// that gets past the guard is the guard's failure: it says so and exits 1, so a broken guard fails the test instead of
// showing as Skipped. kGuarded is false only in arch_guard_sm80_unguarded, the same program without the guard, whose
// test shows that this one fails when the guard does nothing.
#include "tc/arch_guard.cuh"
#include "tc/device.hpp"
#include "tc/exit_codes.hpp"

#include <cstdio>

namespace {
constexpr bool kGuarded = TC_ARCH_GUARD_CALLED != 0;  // set by common/tests/CMakeLists.txt for each of the two builds
}  // namespace

int main() {
  if constexpr (kGuarded) tc::require_kernel_image("80-real");  // exits 5 here on an sm_90 GPU
  const tc::DeviceInfo device = tc::query_device();
  if (!device.cuda_failure.empty()) {  // a GPU is there: the guard is untested, which is a failure, not a skip
    std::fprintf(stderr, "error: %s\n", device.cuda_failure.c_str());
    return tc::kExitCudaError;
  }
  if (!device.present) {
    std::printf("skipped: %s\n", device.absent_reason.c_str());
    return tc::kExitNoGpu;
  }
  if (device.sm / 10 == 8) {
    std::printf("skipped: this GPU, %s (%s), runs sm_80 SASS: nothing to catch\n", device.name.c_str(),
                tc::sm_name(device.sm).c_str());
    return tc::kExitNoGpu;
  }
  std::fprintf(stderr, "error: the wrong-architecture guard let a binary with sm_80 SASS only run on %s (%s)\n",
               device.name.c_str(), tc::sm_name(device.sm).c_str());
  return tc::kExitMismatch;
}
