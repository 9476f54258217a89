// Chapter 11 -- the attention problem: shapes, layouts, the causal mask's alignment, the FLOP count, and the rules a
// problem must keep, each broken rule as one line. Host code (the mask and the GQA map on the device too); no GPU
// needed.
//
// O = softmax(Q K^T / sqrt(d)) V for every (batch, query head), with L the logsumexp of each query row's scaled
// scores (natural log: L = ln sum_j exp(q . k_j / sqrt(d))), which a backward pass needs.
//   Q: [batch, seqlen_q, heads, head_dim]    K, V: [batch, seqlen_k, kv_heads, head_dim]    O: as Q
//   L: [batch, heads, seqlen_q], fp32 ([heads, total_tokens] with varlen)
// head_dim is contiguous, as PyTorch and FlashAttention store them. Grouped-query attention (GQA): heads is a
// multiple of kv_heads, and query head h reads KV head h / (heads / kv_heads). Varlen: the batch's sequences packed
// one after another along the token dimension ([total_tokens, heads, head_dim]), sequence b's tokens
// cu_seqlens[b] .. cu_seqlens[b + 1] (FlashAttention's varlen interface), the same offsets for Q and K here (self-
// attention).
// The causal mask is aligned to the bottom right, as FlashAttention (2.1 and later) and cuDNN's
// causal_mask_bottom_right align it: query i may see key j when j <= i + seqlen_k - seqlen_q. With seqlen_q ==
// seqlen_k that is the usual j <= i; with seqlen_q > seqlen_k the first seqlen_q - seqlen_k rows see no key, and
// then O is 0 and L is -inf.
#pragma once

#include <cuda_runtime_api.h>  // __host__ __device__: the kernels apply the same rules

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attention {

// The head dimensions the chapter's kernels are built for.
inline constexpr int kHeadDims[] = {64, 128, 256};

// [doc:problem]
struct Shape {
  int batch = 1;
  int seqlen_q = 0;  // per sequence; with varlen, the longest sequence
  int seqlen_k = 0;
  int heads = 1;     // query heads
  int kv_heads = 1;  // key and value heads (GQA: fewer)
  int head_dim = 128;
  bool causal = false;
  std::vector<int> cu_seqlens;  // varlen: batch + 1 offsets from 0; empty when every sequence is seqlen_q long
};

// [/doc:problem]

// Query head h's KV head under GQA.
__host__ __device__ constexpr int kv_head_of(int h, int heads, int kv_heads) { return h / (heads / kv_heads); }

// Whether query i (of seqlen_q) may see key j (of seqlen_k) under the bottom-right causal mask.
__host__ __device__ constexpr bool causal_visible(int i, int j, int seqlen_q, int seqlen_k) {
  return j <= i + seqlen_k - seqlen_q;
}

// [doc:key_tiles]
// How many key tiles of n keys the rows row0 .. row0 + rows - 1 of a sequence see: every tile of the sequence's sk
// keys, or with `causal` those up to the last row's diagonal (key row0 + rows - 1 + sk - sq); 0 where every key lies
// past it. Rows past the sequence's end (a last row block that runs over it) count as rows: their results are never
// stored, and they only ever add masked keys.
__host__ __device__ constexpr int key_tiles(int row0, int rows, int n, int sq, int sk, bool causal) {
  const int diagonal = row0 + rows - 1 + sk - sq;
  const int last_key = causal && diagonal < sk - 1 ? diagonal : sk - 1;
  return last_key < 0 ? 0 : last_key / n + 1;
}

// Whether the key tile key0 .. key0 + n - 1 needs the mask for rows row0 .. row0 + 63 (a warpgroup's): a key past
// the sequence (sk), or with `causal` a key past row0's diagonal (row0 is the most restricted row). A kernel that
// branches on it skips the mask's compares on every other tile: all but one or two of a causal row block's, and a
// non-causal problem's whole tiles.
__host__ __device__ constexpr bool tile_needs_mask(int row0, int key0, int n, int sq, int sk, bool causal) {
  return key0 + n > sk || (causal && !causal_visible(row0, key0 + n - 1, sq, sk));
}
// [/doc:key_tiles]

// The lengths of sequence b (queries and keys are the same tokens with varlen).
inline int seqlen_q_of(const Shape& s, int b) {
  return s.cu_seqlens.empty() ? s.seqlen_q : s.cu_seqlens[std::size_t(b) + 1] - s.cu_seqlens[std::size_t(b)];
}
inline int seqlen_k_of(const Shape& s, int b) {
  return s.cu_seqlens.empty() ? s.seqlen_k : s.cu_seqlens[std::size_t(b) + 1] - s.cu_seqlens[std::size_t(b)];
}

// Query rows and key rows stored (the packed tokens with varlen).
inline std::int64_t total_q(const Shape& s) {
  return s.cu_seqlens.empty() ? std::int64_t(s.batch) * s.seqlen_q : s.cu_seqlens.back();
}
inline std::int64_t total_k(const Shape& s) {
  return s.cu_seqlens.empty() ? std::int64_t(s.batch) * s.seqlen_k : s.cu_seqlens.back();
}

// FLOPs as FlashAttention counts them: 4 * seqlen_q * seqlen_k * head_dim * heads per sequence (two GEMMs, 2 flops a
// multiply-add), summed over the batch, and halved for causal attention (the FA papers' convention: the diagonal
// tiles' masked half is not subtracted, and at seqlen_q != seqlen_k the halving is a convention, not a count).
inline double flops(const Shape& s) {
  double sum = 0.0;
  for (int b = 0; b < s.batch; ++b) sum += 4.0 * seqlen_q_of(s, b) * seqlen_k_of(s, b) * s.head_dim * s.heads;
  return s.causal ? sum / 2 : sum;
}

// The first rule `s` breaks, as one line, or nothing: sizes >= 1 (seqlen_q, seqlen_k, batch, heads, kv_heads); a
// supported head_dim; heads a multiple of kv_heads; varlen offsets (batch + 1 of them, from 0, increasing: each
// sequence at least one token); every tensor's element count within 2^31 - 1 (the kernels index with 32-bit ints).
inline std::optional<std::string> shape_problem(const Shape& s) {
  auto str = [](std::int64_t v) { return std::to_string(v); };
  if (s.batch < 1) return "batch must be at least 1, got " + str(s.batch);
  if (s.heads < 1 || s.kv_heads < 1)
    return "heads and kv_heads must be at least 1, got " + str(s.heads) + " and " + str(s.kv_heads);
  if (s.heads % s.kv_heads != 0)
    return "heads (" + str(s.heads) + ") must be a multiple of kv_heads (" + str(s.kv_heads) +
           ") for grouped-query attention";
  bool supported = false;
  for (int d : kHeadDims) supported |= s.head_dim == d;
  if (!supported) return "head_dim " + str(s.head_dim) + " is not supported (64, 128 or 256)";
  if (s.cu_seqlens.empty()) {
    if (s.seqlen_q < 1 || s.seqlen_k < 1)
      return "seqlen_q and seqlen_k must be at least 1, got " + str(s.seqlen_q) + " and " + str(s.seqlen_k);
  } else {
    if (s.cu_seqlens.size() != std::size_t(s.batch) + 1)
      return "varlen needs batch + 1 = " + str(s.batch + 1) + " offsets, got " + str(std::int64_t(s.cu_seqlens.size()));
    if (s.cu_seqlens.front() != 0) return "varlen offsets must start at 0, got " + str(s.cu_seqlens.front());
    for (std::size_t b = 0; b + 1 < s.cu_seqlens.size(); ++b)
      if (s.cu_seqlens[b + 1] <= s.cu_seqlens[b])
        return "varlen offsets must increase (every sequence at least one token): offset " + str(std::int64_t(b) + 1) +
               " is " + str(s.cu_seqlens[b + 1]) + ", after " + str(s.cu_seqlens[b]);
    int longest = 0;
    for (int b = 0; b < s.batch; ++b) longest = seqlen_q_of(s, b) > longest ? seqlen_q_of(s, b) : longest;
    if (s.seqlen_q != longest || s.seqlen_k != longest)
      return "with varlen, seqlen_q and seqlen_k are the longest sequence, " + str(longest) + ", got " +
             str(s.seqlen_q) + " and " + str(s.seqlen_k);
  }
  constexpr std::int64_t kMax = (std::int64_t(1) << 31) - 1;
  if (total_q(s) * s.heads * s.head_dim > kMax || total_k(s) * s.kv_heads * s.head_dim > kMax)
    return "a tensor of more than 2^31 - 1 elements: Q has " + str(total_q(s) * s.heads * s.head_dim) + ", K " +
           str(total_k(s) * s.kv_heads * s.head_dim);
  return std::nullopt;
}

}  // namespace attention
