// Every wgmma wrapper (tc/wgmma_mma_async.cuh) through ptxas for sm_90a: each type, each N, both forms (A from shared
// memory and from registers), and for 16-bit types both major-nesses. An instruction spelled in a way ptxas rejects,
// or an immediate out of range, fails the build of this test, on a machine with no GPU. The kernels never run; the
// GPU probes (common/tests/test_wgmma_forms.cu, chapters 07 and 09) hold the wrappers' results against the hardware.
#include "tc/wgmma.cuh"

#include <cstdint>
#include <utility>

namespace {

using tc::WgmmaMajor;

// One wgmma into a zeroed accumulator, fenced, committed and waited for as every caller must, then stored. `Form`:
// 0 SS with K-major A and B, 1 SS with MN-major A and B, 2 RS with K-major B, 3 RS with MN-major B.
template <typename Input, int N, int Form>
__global__ void one_wgmma(float* f_out, std::int32_t* s_out, std::uint64_t desc_a, std::uint64_t desc_b,
                          std::uint32_t a0) {
  constexpr bool kEightBit = sizeof(Input) == 1;
  using Acc = std::conditional_t<kEightBit, tc::wgmma_k32_accumulator_t<Input>, float>;
  Acc d[N / 2] = {};
  const std::uint32_t a[4] = {a0, a0 + 1, a0 + 2, a0 + 3};
  tc::wgmma_fence();
  if constexpr (kEightBit && Form == 0) tc::wgmma_m64nNk32<N, Input>(d, desc_a, desc_b, false);
  if constexpr (kEightBit && Form == 2) tc::wgmma_m64nNk32_rs<N, Input>(d, a, desc_b, false);
  if constexpr (!kEightBit && Form == 0) tc::wgmma_m64nNk16<N, Input>(d, desc_a, desc_b, false);
  if constexpr (!kEightBit && Form == 1) {
    tc::wgmma_m64nNk16<N, Input, WgmmaMajor::MN, WgmmaMajor::MN>(d, desc_a, desc_b, false);
  }
  if constexpr (!kEightBit && Form == 2) tc::wgmma_m64nNk16_rs<N, Input>(d, a, desc_b, false);
  if constexpr (!kEightBit && Form == 3) tc::wgmma_m64nNk16_rs<N, Input, WgmmaMajor::MN>(d, a, desc_b, false);
  tc::wgmma_commit_group();
  tc::wgmma_wait_group<0>();
  for (int i = 0; i < N / 2; ++i) {
    if constexpr (std::is_same_v<Acc, float>) {
      f_out[threadIdx.x * (N / 2) + i] = d[i];
    } else {
      s_out[threadIdx.x * (N / 2) + i] = d[i];
    }
  }
}

// Every N the wrappers exist for: 8, 16, ..., 256 for 16-bit; 8, 16, 24, 32, 48, ..., 256 for 8-bit.
template <typename Input, int... Steps>
void instantiate(std::integer_sequence<int, Steps...>) {
  constexpr bool kEightBit = sizeof(Input) == 1;
  auto one_n = [](auto n_constant) {
    constexpr int N = decltype(n_constant)::value;
    if constexpr (!kEightBit || N <= 24 || N % 16 == 0) {
      (void)&one_wgmma<Input, N, 0>;
      (void)&one_wgmma<Input, N, 2>;
      if constexpr (!kEightBit) {
        (void)&one_wgmma<Input, N, 1>;
        (void)&one_wgmma<Input, N, 3>;
      }
    }
  };
  (one_n(std::integral_constant<int, 8 * (Steps + 1)>{}), ...);
}

}  // namespace

void tc_ptxas_wgmma_instantiations() {
  const auto widths = std::make_integer_sequence<int, 32>{};  // N = 8 * (1..32)
  instantiate<__half>(widths);
  instantiate<__nv_bfloat16>(widths);
  instantiate<__nv_fp8_e4m3>(widths);
  instantiate<__nv_fp8_e5m2>(widths);
  instantiate<std::int8_t>(widths);
  instantiate<std::uint8_t>(widths);
}
