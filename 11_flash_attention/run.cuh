// Chapter 11 -- one problem on the GPU: random Q, K and V, the reference's O and L, and a step's checked against them.
// Host code; what the tests and main.cu share.
#pragma once

#include "check.hpp"
#include "launch.cuh"
#include "problem.hpp"

#include "tc/device_buffer.hpp"
#include "tc/memory.hpp"
#include "tc/random.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace attention {

// The problem's tensors: Q, K, V uniform in [-1, 1) rounded to T (tc::fill_random, seeded), Q times q_scale (a
// power of two keeps it exact: 8 makes the softmax peaky, so that a row's max moves as it would on real data); O
// poisoned (NaN) before each checked launch, so that an element no thread writes fails; the reference's O and L,
// computed once.
template <typename T>
struct Problem {
  Shape shape;
  tc::DeviceBuffer<T> q, k, v, o;
  tc::DeviceBuffer<float> lse, o_ref, l_ref;
  tc::DeviceBuffer<int> cu_seqlens;
  double v_max = 0.0;

  DeviceTensors<T> tensors() {
    return {q.data(), k.data(), v.data(), o.data(), lse.data(), shape.cu_seqlens.empty() ? nullptr : cu_seqlens.data()};
  }
};

// What make_problem and a check allocate, in bytes (element_bytes: T's size): on the GPU Q, K, V and O in T, L, the
// reference's O and L in fp32, and the varlen offsets; on the host the larger of make_problem's Q, K and V in T and a
// check's downloads (O in T and as fp32, the reference's O, both L). Precondition: shape_problem(s) holds. Errors:
// tc::TooLargeError past 2^64 - 1 bytes (checked_bytes).
inline tc::MemoryNeed memory_need(const Shape& s, std::uint64_t element_bytes) {
  const std::uint64_t q = std::uint64_t(total_q(s)) * s.heads * s.head_dim;
  const std::uint64_t kv = std::uint64_t(total_k(s)) * s.kv_heads * s.head_dim;
  const std::uint64_t rows = std::uint64_t(total_q(s)) * s.heads;
  const std::uint64_t made = tc::checked_bytes(tc::checked_sum({q, kv, kv}), element_bytes);
  const std::uint64_t checked = tc::checked_sum({tc::checked_bytes(q, element_bytes + 8), tc::checked_bytes(rows, 8)});
  const std::uint64_t device =
      tc::checked_sum({tc::checked_bytes(tc::checked_sum({q, q, kv, kv}), element_bytes), tc::checked_bytes(q, 4),
                       tc::checked_bytes(rows, 8), tc::checked_bytes(s.cu_seqlens.size(), 4)});
  return {std::max(made, checked), device};
}

// Scores that rise along the keys, so that a row's max grows on every key tile and the online softmax must rescale
// there (what a skipped rescale breaks, and what step 5's conditional rescale acts on only past 2^8): every query's
// score with key t of its sequence gains log2_units * floor(t / every), in the softmax's log2 units, through element
// 0 of head_dim: Q's set to 1, K's to that rise over scale_log2 = log2(e) / sqrt(head_dim), rounded to T alike for
// the kernel and the reference. every = 0: none. With every a key tile, each tile passes the last one's scores by
// log2_units, less the spread of the rest of the sum.
struct KeyRise {
  float log2_units = 0.0f;
  int every = 0;
};

// Makes the problem and runs the reference. Errors: std::invalid_argument (shape_problem's line), tc::CudaError.
template <typename T>
Problem<T> make_problem(const Shape& s, std::uint64_t seed, float q_scale = 1.0f, KeyRise rise = {}) {
  if (const auto why = shape_problem(s)) throw std::invalid_argument(*why);
  Problem<T> p;
  p.shape = s;
  const std::size_t q_count = std::size_t(total_q(s)) * s.heads * s.head_dim;
  const std::size_t kv_count = std::size_t(total_k(s)) * s.kv_heads * s.head_dim;
  std::vector<T> q(q_count), k(kv_count), v(kv_count);
  tc::fill_random(q.data(), q.size(), seed, tc::Fill::Real);
  for (T& x : q) x = T(float(x) * q_scale);
  tc::fill_random(k.data(), k.size(), seed + 1, tc::Fill::Real);
  tc::fill_random(v.data(), v.size(), seed + 2, tc::Fill::Real);
  if (rise.every > 0) {
    const double scale_log2 = 1.4426950408889634 / std::sqrt(double(s.head_dim));
    for (std::size_t i = 0; i < q.size(); i += std::size_t(s.head_dim)) q[i] = T(1.0f);
    for (int b = 0, token0 = 0; b < s.batch; token0 += seqlen_k_of(s, b), ++b)
      for (int t = 0; t < seqlen_k_of(s, b); ++t)
        for (int h = 0; h < s.kv_heads; ++h)
          k[(std::size_t(token0 + t) * s.kv_heads + h) * s.head_dim] =
              T(float(rise.log2_units * (t / rise.every) / scale_log2));
  }
  for (const T& x : v) p.v_max = std::max(p.v_max, std::fabs(double(float(x))));
  p.q = tc::DeviceBuffer<T>(q);
  p.k = tc::DeviceBuffer<T>(k);
  p.v = tc::DeviceBuffer<T>(v);
  p.o = tc::DeviceBuffer<T>(q_count);
  p.lse = tc::DeviceBuffer<float>(std::size_t(total_q(s)) * s.heads);
  p.o_ref = tc::DeviceBuffer<float>(q_count);
  p.l_ref = tc::DeviceBuffer<float>(std::size_t(total_q(s)) * s.heads);
  if (!s.cu_seqlens.empty()) p.cu_seqlens = tc::DeviceBuffer<int>(s.cu_seqlens);
  launch_reference(s, p.tensors(), p.o_ref.data(), p.l_ref.data(), nullptr);
  TC_CHECK(cudaDeviceSynchronize());
  return p;
}

// 2^-8 for bf16, 2^-11 for fp16: the unit roundoff check.hpp's bound takes.
template <typename T>
constexpr double unit_roundoff() {
  return std::is_same_v<T, __half> ? 1.0 / 2048 : 1.0 / 256;
}

// Runs launch(shape, tensors, stream) once on poisoned O and L, and checks both against the reference.
template <typename T, typename Launch>
CheckResult run_and_check(Problem<T>& p, Launch launch) {
  p.o.poison();
  p.lse.poison();
  launch(p.shape, p.tensors(), cudaStream_t{nullptr});
  TC_CHECK(cudaDeviceSynchronize());
  const std::vector<T> o16 = p.o.download();
  std::vector<float> o(o16.size());
  std::transform(o16.begin(), o16.end(), o.begin(), [](T x) { return float(x); });
  return check_attention(o, p.o_ref.download(), p.lse.download(), p.l_ref.download(), p.v_max, unit_roundoff<T>());
}

}  // namespace attention
