// The 8-bit wgmma wrappers (tc/wgmma_8bit.cuh) through ptxas for sm_90a, each shape and type once: an instruction
// spelled in a way ptxas rejects fails the build, on a machine with no GPU. The kernels never run; chapter 09's probe
// holds the wrappers' results against the hardware.
#include "tc/wgmma.cuh"
#include "tc/wgmma_8bit.cuh"

#include <cstdint>

namespace {

// One m64nNk32 of Input into a zeroed accumulator, fenced, committed and waited for as every caller must, then stored.
template <typename Input, int N>
__global__ void one_wgmma(tc::wgmma_k32_accumulator_t<Input>* out, std::uint64_t desc_a, std::uint64_t desc_b) {
  tc::wgmma_k32_accumulator_t<Input> d[N / 2] = {};
  tc::wgmma_fence();
  tc::wgmma_m64nNk32<N, Input>(d, desc_a, desc_b, false);
  tc::wgmma_commit_group();
  tc::wgmma_wait_group<0>();
  for (int i = 0; i < N / 2; ++i) out[threadIdx.x * (N / 2) + i] = d[i];
}

template <typename Input>
void instantiate_shapes() {
  (void)&one_wgmma<Input, 64>;
  (void)&one_wgmma<Input, 128>;
  (void)&one_wgmma<Input, 256>;
}

}  // namespace

void tc_ptxas_wgmma_8bit_instantiations() {
  instantiate_shapes<__nv_fp8_e4m3>();
  instantiate_shapes<__nv_fp8_e5m2>();
  instantiate_shapes<std::int8_t>();
  instantiate_shapes<std::uint8_t>();
}
