// Chapter 11 -- the reference: attention computed in fp32 on the GPU, the plain way (every score of a row, then its
// softmax, then P V), for the checks. Not a Tensor Core kernel and not fast: what it must be is obviously right.
#pragma once

#include "problem.hpp"

#include "tc/check.hpp"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

namespace attention {

// What the reference and the kernels take besides the tensors: the problem as the device reads it.
struct DeviceShape {
  int seqlen_q, seqlen_k;  // per sequence (the longest, with varlen)
  int heads, kv_heads, head_dim;
  bool causal;
  const int* cu_seqlens;  // device, batch + 1 offsets; nullptr without varlen
  int total_q;            // query tokens stored: batch * seqlen_q, or the packed total with varlen
  int batch;              // sequences
};

// Where sequence b's tokens start in the packed token dimension, and how many it has.
__host__ __device__ inline int first_token(const DeviceShape& s, int b, int seqlen) {
  return s.cu_seqlens != nullptr ? s.cu_seqlens[b] : b * seqlen;
}
__host__ __device__ inline int sequence_length(const DeviceShape& s, int b, int seqlen) {
  return s.cu_seqlens != nullptr ? s.cu_seqlens[b + 1] - s.cu_seqlens[b] : seqlen;
}

// Where L of query row i (token qt) of head h of sequence b lies: [batch, heads, seqlen_q], or [heads, total_q] with
// varlen (FlashAttention's varlen layout).
__host__ __device__ inline std::int64_t lse_index(const DeviceShape& s, int b, int h, int i, int qt) {
  return s.cu_seqlens != nullptr ? std::int64_t(h) * s.total_q + qt : (std::int64_t(b) * s.heads + h) * s.seqlen_q + i;
}

// The sum (or max) of one value a thread over the block of 128 threads, returned to every thread.
template <typename Op>
__device__ float reduce_128(float v, Op op, float* scratch) {
  for (int offset = 16; offset > 0; offset /= 2) v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
  __syncthreads();  // scratch is free: every thread has read the previous reduction's result
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
  __syncthreads();  // the four warps' values are in scratch
  return op(op(scratch[0], scratch[1]), op(scratch[2], scratch[3]));
}

// [doc:reference]
// Block (i, h, b) of 128 threads: query row i of head h of sequence b. Scores s_j = q . k_j / sqrt(d) (fp32 products
// of the 16-bit inputs) of every key into shared memory, masked keys -inf; m = max_j s_j; P_j = exp(s_j - m);
// O = sum_j P_j v_j / sum_j P_j, one head_dim column a thread; L = m + ln sum_j P_j. A row that sees no key writes
// O = 0 and L = -inf. Layouts as problem.hpp states (O fp32 here). Preconditions: grid (seqlen_q, heads, batch),
// block 128, dynamic shared memory of seqlen_k floats rounded up to a multiple of 4; head_dim <= 256. Errors: none.
template <typename T>
__global__ void __launch_bounds__(128) reference_attention_kernel(const T* __restrict__ q, const T* __restrict__ k,
                                                                  const T* __restrict__ v, float* __restrict__ o,
                                                                  float* __restrict__ lse, DeviceShape s) {
  extern __shared__ float scores[];
  __shared__ float scratch[4];
  const int i = blockIdx.x, h = blockIdx.y, b = blockIdx.z, d = s.head_dim;
  const int sq = sequence_length(s, b, s.seqlen_q), sk = sequence_length(s, b, s.seqlen_k);
  if (i >= sq) return;  // a shorter sequence of a varlen batch
  const int qt = first_token(s, b, s.seqlen_q) + i, kt0 = first_token(s, b, s.seqlen_k);
  const int kvh = kv_head_of(h, s.heads, s.kv_heads);
  const T* qrow = q + (std::int64_t(qt) * s.heads + h) * d;
  const float scale = 1.0f / sqrtf(float(d));
  float m = -INFINITY;
  for (int j = threadIdx.x; j < sk; j += blockDim.x) {
    float dot = 0.0f;
    const T* krow = k + (std::int64_t(kt0 + j) * s.kv_heads + kvh) * d;
    for (int e = 0; e < d; ++e) dot += float(qrow[e]) * float(krow[e]);
    const float score = (!s.causal || causal_visible(i, j, sq, sk)) ? dot * scale : -INFINITY;
    scores[j] = score;
    m = fmaxf(m, score);
  }
  m = reduce_128(m, [](float a, float c) { return fmaxf(a, c); }, scratch);
  float sum = 0.0f;
  for (int j = threadIdx.x; j < sk; j += blockDim.x) {
    const float p = m == -INFINITY ? 0.0f : expf(scores[j] - m);
    scores[j] = p;
    sum += p;
  }
  sum = reduce_128(sum, [](float a, float c) { return a + c; }, scratch);  // its barriers also publish every P_j
  for (int e = threadIdx.x; e < d; e += blockDim.x) {
    float acc = 0.0f;
    for (int j = 0; j < sk; ++j) acc += scores[j] * float(v[(std::int64_t(kt0 + j) * s.kv_heads + kvh) * d + e]);
    o[(std::int64_t(qt) * s.heads + h) * d + e] = sum > 0.0f ? acc / sum : 0.0f;
  }
  if (threadIdx.x == 0) lse[lse_index(s, b, h, i, qt)] = sum > 0.0f ? m + logf(sum) : -INFINITY;
}
// [/doc:reference]

}  // namespace attention
