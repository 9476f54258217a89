// The ptxas scan's canary (cmake/ptxas_scan.cmake, EXPECT=serialized): a kernel that adds to the accumulator between
// two wgmmas without a wgmma.fence and wait, so that ptxas must inject a wait and an arrive and serialize the pipeline,
// and reports it (C7511, C7517, C7519 with CUDA 13.0). If a toolkit stops printing those lines, this test fails and
// says so, rather than the chapters' scans passing for the wrong reason. Never launched; compiled for sm_90a only.
#include "tc/wgmma.cuh"

#include <cstdint>

__global__ void canary_serialized_wgmma(float* out, std::uint64_t desc_a, std::uint64_t desc_b) {
  float acc[64] = {};
  tc::wgmma_fence();
  tc::wgmma_m64n128k16_f32_f16_f16(acc, desc_a, desc_b, true);
  acc[0] += out[1];  // the bug: D touched while the wgmma that writes it may still run
  tc::wgmma_m64n128k16_f32_f16_f16(acc, desc_a, desc_b, true);
  tc::wgmma_commit_group();
  tc::wgmma_wait_group<0>();
  for (int i = 0; i < 64; ++i) out[threadIdx.x * 64 + i] = acc[i];
}
