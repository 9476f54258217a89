// Links against tc_ptx alone (common/tests/CMakeLists.txt): the kernels' layers must not need cuBLAS. If tc_ptx's
// objects called into cuBLAS (as its error check once did), this program would not link. It runs on the host: the
// runtime's error strings and the TMA map's argument rules need no GPU.
#include "tc/check.hpp"
#include "tc/tma.hpp"

#include <cstdio>

int main() {
  try {
    TC_CHECK(cudaErrorInvalidValue);
  } catch (const tc::CudaError& e) {
    std::printf("%s\n", e.what());
  }
  const tc::Tma2d unaligned{reinterpret_cast<const void*>(8), 2, 64, 64, 128, 64, 64, tc::Swizzle::B128};
  std::printf("%s\n", tc::tma_2d_problem(unaligned).value_or("no problem").c_str());
  return 0;
}
