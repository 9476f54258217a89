// Chapter 09, step 2 -- the accumulator probe: how many significand bits the fp8 wgmma keeps when it adds.
//
// The fp8 wgmma accumulates in fp32 registers, but the DeepSeek-V3 report (section 3.3) found that on the H800 its
// additions keep only about 14 bits: products are aligned to the largest exponent and the bits below are cut. This
// probe measures it on this GPU. One warpgroup runs one slice (four m64n64k32 e4m3 wgmmas, K = 128) on operands that
// are zero except for two products per output: a large one, 2^8 x 2^8 = 2^16 at K index 0, and a small one,
// +-2^(16 - g) = +-2^(8 - ceil(g/2)) x 2^(8 - floor(g/2)), either at K index 1 (the same k32 instruction: its internal
// sum) or at K index 32 (the next instruction: added to the accumulator the first one wrote). Every value is an e4m3
// power of two (2^-8 .. 2^8), and the exact sum 2^16 +- 2^(16 - g) is an fp32 value for g <= 23. For each gap g the
// probe reads D back: exact, or not. An accumulator that keeps b significand bits of a sum near 2^16 holds every bit
// down to 2^(17 - b), so the sum is exact for g < b and loses the small product from g = b on: the first gap that is
// not exact is the number of bits kept.
// Source: PTX ISA, "wgmma.mma_async" (.e4m3 operands, .f32 accumulators); DeepSeek-V3 Technical Report, section 3.3.2
// ("Increasing Accumulation Precision").
#pragma once

#include "tc/check.hpp"
#include "tc/device_buffer.hpp"
#include "tc/layouts/wgmma.hpp"
#include "tc/mbarrier.cuh"
#include "tc/precisions_8bit.hpp"
#include "tc/wgmma_slice.cuh"

#include <cuda_fp8.h>

#include <cmath>
#include <cstdint>
#include <vector>

// [doc:probe]
// 128 threads (one warpgroup): D (64 x 64, fp32, column-major, ld 64) = A (64 x 128 e4m3, one slice of map_a) *
// B (128 x 64, one slice of map_b), as one slice of the chapter's kernels computes it.
__global__ void __launch_bounds__(128)
    fp8_accumulator_probe_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                                 float* d) {
  constexpr int kSliceBytes = 64 * tc::kSliceBytes;  // 64 rows of one slice, for A and for B
  extern __shared__ unsigned char smem_raw[];
  unsigned char* a = tc::aligned_smem(smem_raw);  // the 128B swizzle's atom is 1024 bytes
  unsigned char* b = a + kSliceBytes;
  auto* full = reinterpret_cast<std::uint64_t*>(b + kSliceBytes);
  if (threadIdx.x == 0) {
    tc::mbarrier_init(full, 1);
    tc::fence_mbarrier_init_release_cluster();  // initialised before the TMA unit completes on it
    tc::mbarrier_arrive_expect_tx(full, 2 * kSliceBytes);
    tc::cp_async_bulk_tensor_2d_global_to_shared(a, &map_a, 0, 0, full);
    tc::cp_async_bulk_tensor_2d_global_to_shared(b, &map_b, 0, 0, full);
  }
  __syncthreads();  // no thread waits on the barrier before thread 0 has initialised it
  tc::mbarrier_wait_parity(full, 0);
  tc::wgmma_accumulator_t<__nv_fp8_e4m3> acc[1][32] = {};
  tc::mma_slice_row_blocks<1, 64, __nv_fp8_e4m3>(acc, tc::slice_descriptor(tc::shared_address(a), 0),
                                                 tc::slice_descriptor(tc::shared_address(b), 0));
  tc::wgmma_wait_group<0>();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll
  for (int i = 0; i < 32; ++i) {
    const tc::Coord p = tc::wgmma_m64nNk16_d_coord(warp, lane, i);
    d[p.row + 64 * p.col] = acc[0][i];
  }
}
// [/doc:probe]

inline constexpr int kProbeMaxGap = 23;  // beyond it 2^16 +- 2^(16 - g) is no fp32 value

// What the probe saw for one placement of the small product: for each gap g (0..kProbeMaxGap) and sign, whether
// every element of D was the exact sum, and the value of D(0, 0).
struct AccumulatorProbe {
  bool exact[2][kProbeMaxGap + 1] = {};  // [sign: 0 +, 1 -][g]
  float value[2][kProbeMaxGap + 1] = {};
  // The first gap at which a sum of either sign is not exact: the significand bits the additions keep (kProbeMaxGap
  // + 1 when every gap was exact).
  int bits_kept() const {
    for (int g = 0; g <= kProbeMaxGap; ++g)
      if (!exact[0][g] || !exact[1][g]) return g;
    return kProbeMaxGap + 1;
  }
};

// Runs the probe with the small product at K index `small_k` (1: the large one's instruction; 32: the next one).
// Errors: tc::CudaError.
inline AccumulatorProbe probe_fp8_accumulator(int small_k) {
  using Fp8 = __nv_fp8_e4m3;
  constexpr int kSmem = 2 * 64 * tc::kSliceBytes + 8 + 1024;  // A, B, the barrier, and tc::aligned_smem's slack
  TC_CHECK(cudaFuncSetAttribute(fp8_accumulator_probe_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  tc::DeviceBuffer<Fp8> a(64 * 128), b(64 * 128);
  tc::DeviceBuffer<float> d(64 * 64);
  const CUtensorMap map_a = tc::k_major_map(a.data(), 64, 128, 128, 64);
  const CUtensorMap map_b = tc::k_major_map(b.data(), 64, 128, 128, 64);
  auto e4m3 = [](double v) { return tc::ElementTraits<Fp8>::from_double(v); };
  AccumulatorProbe r;
  for (int sign = 0; sign < 2; ++sign)
    for (int g = 0; g <= kProbeMaxGap; ++g) {
      // Row-major A and column-major B are both K-major: element (row, l) of either at row * 128 + l.
      std::vector<Fp8> ha(64 * 128, e4m3(0.0)), hb(64 * 128, e4m3(0.0));
      for (int row = 0; row < 64; ++row) {
        ha[row * 128] = hb[row * 128] = e4m3(256.0);  // 2^8 x 2^8 = 2^16
        ha[row * 128 + small_k] = e4m3((sign ? -1.0 : 1.0) * std::ldexp(1.0, 8 - (g + 1) / 2));
        hb[row * 128 + small_k] = e4m3(std::ldexp(1.0, 8 - g / 2));
      }
      a.upload(ha);
      b.upload(hb);
      d.poison();
      fp8_accumulator_probe_kernel<<<1, 128, kSmem>>>(map_a, map_b, d.data());
      tc::check_launch();
      TC_CHECK(cudaDeviceSynchronize());
      const std::vector<float> got = d.download();
      const float want = float(65536.0 + (sign ? -1.0 : 1.0) * std::ldexp(1.0, 16 - g));
      bool all = true;
      for (float v : got) all &= v == want;
      r.exact[sign][g] = all;
      r.value[sign][g] = got[0];
    }
  return r;
}
