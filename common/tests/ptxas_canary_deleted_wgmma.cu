// The ptxas scan's canary (cmake/ptxas_scan.cmake, EXPECT=deleted): a kernel whose first wgmma group writes an
// accumulator that the second overwrites (scale-d 0) before anything reads it. ptxas deletes a wgmma whose result
// nothing reads, asm volatile or not, and leaves a placeholder HGMMA (RZ, gdesc[URZ]) for the group's bookkeeping:
// what chapter 11's ceiling kernel did to three key tiles' S of four, until it read each S. If a toolkit stops leaving
// that placeholder, this test fails and says so, rather than the chapters' scans passing for the wrong reason. Never
// launched; compiled for sm_90a only.
#include "tc/wgmma.cuh"

#include <cstdint>

__global__ void canary_deleted_wgmma(float* out, std::uint64_t desc_a, std::uint64_t desc_b) {
  float acc[64];
  tc::wgmma_fence();
  tc::wgmma_m64n128k16_f32_f16_f16(acc, desc_a, desc_b, false);  // the bug: this result is never read
  tc::wgmma_commit_group();
  tc::wgmma_wait_group<0>();
  tc::wgmma_fence();
  tc::wgmma_m64n128k16_f32_f16_f16(acc, desc_a, desc_b, false);  // overwrites it
  tc::wgmma_commit_group();
  tc::wgmma_wait_group<0>();
  for (int i = 0; i < 64; ++i) out[threadIdx.x * 64 + i] = acc[i];
}
