// The wrong-architecture guard, exercised for real: this binary is built with sm_80 SASS only (CUDA_ARCHITECTURES
// 80-real, no PTX; common/tests/CMakeLists.txt), so on a GPU of any other major version, an H100 or H200 (sm_90)
// among them, tc::require_kernel_image must stop it with its one-line message and exit tc::kExitNoKernelImage (5).
// The ctest test arch_guard:sm80_only_binary_stops_with_exit_5 (cmake/expect_exit_code.cmake) checks both.
// Where the GPU runs sm_80 SASS (sm_80, sm_86, sm_87, sm_89), or there is no GPU, there is nothing to catch: it says
// so and exits 77, and the test is reported Skipped.
#include "tc/arch_guard.cuh"
#include "tc/device.hpp"
#include "tc/exit_codes.hpp"

#include <cstdio>

int main() {
  tc::require_kernel_image("80-real");  // exits 5 here on an sm_90 GPU
  const tc::DeviceInfo device = tc::query_device();
  std::printf("skipped: %s\n", device.present ? ("this GPU, " + device.name + ", runs sm_80 SASS: nothing to catch")
                                                    .c_str()
                                              : device.absent_reason.c_str());
  return tc::kExitNoGpu;
}
