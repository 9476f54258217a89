// Chapter 11 -- the two ceilings an attention forward runs under, measured on this GPU: the rate of its wgmma mix, and
// the rate of the exponential (MUFU.EX2).
//
// Per (query, key) pair, S = Q K^T and O += P V cost 4 * head_dim FLOPs on the tensor cores, and the softmax one
// exponential on the SM's multi-function unit, which gives 16 a clock (CUDA C++ Programming Guide, "Arithmetic
// Instructions", compute capability 9.0): about 4.2 T a second over 132 SMs at 1.98 GHz, against 989 TFLOP/s of dense
// bf16 matmul (the datasheet), so some 240 FLOPs an exponential. At head_dim 128 a pair's 512 FLOPs take about twice
// as long as its exponential; run one after the other, the two hold attention to about two thirds of the tensor
// cores' rate. That is FlashAttention-3's case for overlapping them (Shah et al., 2024, section 3). The kernels here
// measure both rates in the process that times the steps, so that --bench places each step against them:
// wgmma_mix_ceiling_kernel the tensor cores on exactly the wgmmas a step issues for one key tile, ex2_ceiling_kernel
// the MUFU pipe; no_overlap_bound combines them.
// Preconditions: sm_90a. Errors: tc::CudaError (measure_ceilings). Source: PTX ISA, "wgmma.mma_async", "ex2".
#pragma once

#include "step5_persistent.cuh"  // Step5Shape: the key tile step 5 runs at each head_dim on long sequences
#include "tile_math.cuh"         // issue_s, issue_pv, pack2

#include "tc/check.hpp"
#include "tc/device.hpp"
#include "tc/device_buffer.hpp"
#include "tc/ex2.cuh"
#include "tc/mbarrier.cuh"  // fence_proxy_async_shared_cta
#include "tc/shared_address.cuh"
#include "tc/timer.hpp"
#include "tc/wgmma.cuh"
#include "tc/wgmma_slice.cuh"  // aligned_smem

#include <cuda_bf16.h>

#include <cstddef>
#include <cstdint>

namespace attention {

// [doc:ceilings]
// The tensor cores' ceiling for one head_dim: a block of two consumer warpgroups, each issuing
// every key tile's S = Q K^T (D / 16 wgmmas m64nBNk16, Q and K from shared memory) and O += P V (BN / 16 wgmmas
// m64nDk16, P from registers, V MN-major): tile_math.cuh's issue_s and issue_pv, the steps' own code. The tiles stay
// resident, and there is nothing else: no TMA, no softmax, no barrier. At most two groups in flight, as in the steps,
// and one block per SM. P's registers are fixed, so no S waits for a softmax; one register of each S is read, or
// ptxas would delete the S that nothing reads (below), and out keeps the last of every accumulator.
// Two warpgroups also at head_dim 64, where step 5 runs three: three, with no producer to take registers from (no
// setmaxnreg), would have 168 registers each, too few for two groups of wgmmas in flight (ptxas serializes them). The
// ceiling is the tensor cores' rate on step 5's wgmma shapes, not a model of its block.
// Dynamic shared memory: ceiling_smem_bytes<D, BN>(). Preconditions: 256 threads; sm_90a.
template <int D, int BN>
constexpr int ceiling_smem_bytes() {
  return 1024 + 64 * D * 2 + 2 * BN * D * 2;  // the 128B swizzle's alignment, Q's 64 rows, one K and one V tile
}

template <int D, int BN, typename T>
__global__ void __launch_bounds__(256, 1) wgmma_mix_ceiling_kernel(float* out, int tiles) {
  extern __shared__ unsigned char smem_raw[];
  unsigned char* const q = tc::aligned_smem(smem_raw);  // every tile on a 128B-swizzle atom
  unsigned char* const k = q + 64 * D * 2;
  unsigned char* const v = k + BN * D * 2;
  // Zeros: the issue rate does not depend on the values, but the power drawn does; zero operands keep the GPU under
  // its power limit, so this is the ceiling at full clock (docs/07, "The ceiling").
  for (int i = threadIdx.x; i < (64 + 2 * BN) * D * 2 / 16; i += blockDim.x) reinterpret_cast<uint4*>(q)[i] = uint4{};
  tc::fence_proxy_async_shared_cta();  // this thread's stores, before the async proxy (wgmma) reads them
  __syncthreads();                     // every thread's stores, before any warpgroup's wgmma
  float s[BN / 2], o[D / 2] = {};
  std::uint32_t p[BN / 16][4];
  for (auto& step : p)
    for (std::uint32_t& r : step) r = pack2<T>(0.0f, 0.0f);
  const std::uint32_t q_addr = tc::shared_address(q), k_addr = tc::shared_address(k), v_addr = tc::shared_address(v);
  float read = 0.0f;
  for (int j = 0; j < tiles; ++j) {
    issue_s<BN, D / 64, T>(s, q_addr, 64 * 128, k_addr, BN * 128);  // panels: 64 rows of Q, BN rows of K
    issue_pv<BN, D, T>(o, p, v_addr);
    tc::wgmma_wait_group<1>();  // S(j) is done, P V(j) may still run: two groups in flight at most
    // S(j) read, as a step's softmax reads it. Unread, S(j) is dead: S(j + 1)'s first wgmma overwrites it (scale-d
    // 0), and ptxas deletes a wgmma whose result nothing reads, asm volatile or not (cuobjdump -sass showed three
    // tiles' S of four gone, and the ceiling above the tensor cores' peak). One register keeps the whole wgmma.
    read += s[0];
  }
  tc::wgmma_wait_group<0>();  // the last group has written o
  float sum = read;
  for (float x : s) sum += x;
  for (float x : o) sum += x;
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// The exponential's ceiling: every SM full of threads (two blocks of 1024), each running kEx2Chains independent chains
// of ex2.approx.ftz.f32, so that the MUFU pipe and not one chain's latency bounds the rate. x = 2^x - 1 keeps each
// chain's values near 0, finite, and dependent on the last, so that none is computed once and reused.
inline constexpr int kEx2Chains = 8;
__global__ void __launch_bounds__(1024) ex2_ceiling_kernel(float* out, int iterations) {
  float x[kEx2Chains];
#pragma unroll
  for (int c = 0; c < kEx2Chains; ++c) x[c] = -1e-3f * float(1 + c + threadIdx.x % 7);
  for (int it = 0; it < iterations; ++it)
#pragma unroll
    for (int c = 0; c < kEx2Chains; ++c) x[c] = tc::ex2_approx_ftz_f32(x[c]) - 1.0f;
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < kEx2Chains; ++c) sum += x[c];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
// [/doc:ceilings]

// An SM of compute capability 9.0 a clock: 4096 dense 16-bit FLOPs on its tensor cores (docs/external_figures.md,
// sm90-dense-16bit-flop-per-clock) and 16 exponentials on its multi-function unit (sm90-ex2-per-clock).
inline constexpr double kTensorFlopsPerSmClock = 4096.0;
inline constexpr double kEx2PerSmClock = 16.0;

// What measure_ceilings returns: the wgmma mix's TFLOP/s at head_dim 64, 128 and 256 (each with step 5's key tile
// there: Step5Shape), and exponentials a second; beside them the two peaks at the GPU's highest SM clock, which no
// measurement can pass: a ceiling above its peak measured a kernel the compiler took work out of.
struct Ceilings {
  double wgmma_tflops[3] = {};  // head_dim 64, 128, 256
  double ex2_per_s = 0.0;
  double tensor_peak_tflops = 0.0, ex2_peak_per_s = 0.0;
  double wgmma(int head_dim) const { return wgmma_tflops[head_dim == 64 ? 0 : head_dim == 128 ? 1 : 2]; }
  bool within_peaks() const {
    bool ok = ex2_per_s <= ex2_peak_per_s;
    for (double w : wgmma_tflops) ok &= w <= tensor_peak_tflops;
    return ok;
  }
};

// Attention's bound where the exponentials do not overlap the matmuls at all: a pair's 4 D FLOPs at the wgmma rate,
// then its exponential at the MUFU rate, as TFLOP/s. Units: TFLOP/s, exponentials a second.
inline double no_overlap_bound(double wgmma_tflops, double ex2_per_s, int head_dim) {
  const double seconds_a_pair = 4.0 * head_dim / (wgmma_tflops * 1e12) + 1.0 / ex2_per_s;
  return 4.0 * head_dim / seconds_a_pair / 1e12;
}

namespace detail {

template <int D, typename T>
double time_wgmma_mix(int warmup, int repeats, int sms) {
  constexpr int BN = Step5Shape<D>::kBlockN, kTiles = 1024;  // ~1 ms at the ceiling: long next to a launch
  constexpr int bytes = ceiling_smem_bytes<D, BN>();
  TC_CHECK(cudaFuncSetAttribute(wgmma_mix_ceiling_kernel<D, BN, T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                bytes));
  tc::DeviceBuffer<float> out(std::size_t(sms) * 256);
  const double ms = tc::benchmark(
                        [&] {
                          wgmma_mix_ceiling_kernel<D, BN, T><<<sms, 256, bytes>>>(out.data(), kTiles);
                          tc::check_launch();
                        },
                        warmup, repeats)
                        .median_ms;
  const double flops = double(sms) * 2 * kTiles * 2 * (2.0 * 64 * BN * D);  // 2 consumers; S and P V a tile
  return tc::tflops(flops, ms);
}

}  // namespace detail

// Both ceilings on the current GPU, each the median of `repeats` timed launches after `warmup`. T: the inputs' type
// (bf16 or fp16: the same rate). Errors: tc::CudaError.
template <typename T>
Ceilings measure_ceilings(int warmup, int repeats) {
  const int sms = tc::query_device().multiprocessors;
  int device = 0, clock_khz = 0;  // the highest SM clock (cudaDevAttrClockRate): the peaks are at it
  TC_CHECK(cudaGetDevice(&device));
  TC_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
  Ceilings c;
  c.tensor_peak_tflops = sms * kTensorFlopsPerSmClock * clock_khz * 1e3 / 1e12;
  c.ex2_peak_per_s = sms * kEx2PerSmClock * clock_khz * 1e3;
  c.wgmma_tflops[0] = detail::time_wgmma_mix<64, T>(warmup, repeats, sms);
  c.wgmma_tflops[1] = detail::time_wgmma_mix<128, T>(warmup, repeats, sms);
  c.wgmma_tflops[2] = detail::time_wgmma_mix<256, T>(warmup, repeats, sms);
  constexpr int kIterations = 4096;
  const int blocks = 2 * sms;
  tc::DeviceBuffer<float> out(std::size_t(blocks) * 1024);
  const double ms = tc::benchmark(
                        [&] {
                          ex2_ceiling_kernel<<<blocks, 1024>>>(out.data(), kIterations);
                          tc::check_launch();
                        },
                        warmup, repeats)
                        .median_ms;
  c.ex2_per_s = double(blocks) * 1024 * kIterations * kEx2Chains / (ms * 1e-3);
  return c;
}

}  // namespace attention
