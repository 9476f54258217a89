// Chapter 11 -- the benchmark's problems (--bench): the suite the steps were tuned on, and shapes held out from it.
// Host code.
#pragma once

#include "problem.hpp"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace attention {

struct BenchProblem {
  std::string set;  // "suite" or "held-out"
  std::string name;
  Shape shape;
};

// [doc:same_work]
// The same work without grouped-query attention and without varlen, for a problem that has either (else nullopt):
// as many KV heads as query heads, and a varlen batch's sequences all of one length L, the root mean square of
// theirs, so that the batch has the same FLOPs (flops(): the sum of each sequence's length squared) up to L's
// rounding. The benchmark times step 5 on both: GQA's and varlen's cost is the gap (the target: at most 5%).
inline std::optional<Shape> same_work_without_gqa_or_varlen(const Shape& s) {
  if (s.kv_heads == s.heads && s.cu_seqlens.empty()) return std::nullopt;
  Shape t = s;
  t.kv_heads = s.heads;
  if (!s.cu_seqlens.empty()) {
    double squares = 0.0;
    for (int b = 0; b < s.batch; ++b) squares += double(seqlen_q_of(s, b)) * seqlen_k_of(s, b);
    t.seqlen_q = t.seqlen_k = int(std::lround(std::sqrt(squares / s.batch)));
    t.cu_seqlens.clear();
  }
  return t;
}
// [/doc:same_work]

// The suite: FlashAttention-3's forward benchmark (Shah et al., 2024, section 4.1): a hidden size of 2048 (heads =
// 2048 / head_dim) and 16k tokens a batch (batch = 16384 / seqlen), at seqlen 512 to 16k, head_dim 64, 128 and 256,
// causal and not; bf16. The steps' tiles and orders were chosen on these.
inline std::vector<BenchProblem> bench_suite() {
  std::vector<BenchProblem> out;
  for (int d : {64, 128, 256})
    for (bool causal : {false, true})
      for (int seqlen : {512, 1024, 2048, 4096, 8192, 16384}) {
        Shape s;
        s.batch = 16384 / seqlen;
        s.seqlen_q = s.seqlen_k = seqlen;
        s.heads = s.kv_heads = 2048 / d;
        s.head_dim = d;
        s.causal = causal;
        out.push_back({"suite", "fa3", s});
      }
  return out;
}

// Held out, never tuned on: grouped-query attention with the heads of Llama-3-8B (32 query, 8 KV heads) and
// Llama-3-70B (64 and 8), head_dim 128, at a prefill length and a long context, causal; lengths that are not a
// multiple of any tile; more queries than keys (a chunk of a prefill against its whole context, bottom-right
// causal); and a varlen batch of mixed lengths, as a serving engine packs them.
inline std::vector<BenchProblem> bench_held_out() {
  auto make = [](int batch, int sq, int sk, int heads, int kv_heads, int d, bool causal) {
    Shape s;
    s.batch = batch;
    s.seqlen_q = sq;
    s.seqlen_k = sk;
    s.heads = heads;
    s.kv_heads = kv_heads;
    s.head_dim = d;
    s.causal = causal;
    return s;
  };
  std::vector<BenchProblem> out = {
      {"held-out", "Llama-3-8B GQA prefill", make(4, 2048, 2048, 32, 8, 128, true)},
      {"held-out", "Llama-3-8B GQA long", make(1, 16384, 16384, 32, 8, 128, true)},
      {"held-out", "Llama-3-70B GQA prefill", make(2, 4096, 4096, 64, 8, 128, true)},
      {"held-out", "ragged length", make(3, 3000, 3000, 16, 16, 128, false)},
      {"held-out", "ragged length causal", make(5, 1000, 1000, 32, 32, 64, true)},
      {"held-out", "chunk vs context", make(2, 1024, 8192, 32, 8, 128, true)},
  };
  Shape v = make(8, 0, 0, 32, 8, 128, true);  // lengths from a serving mix: short chats to a long document
  v.cu_seqlens = {0};
  for (int len : {93, 512, 1777, 4096, 260, 7000, 33, 2500}) v.cu_seqlens.push_back(v.cu_seqlens.back() + len);
  v.seqlen_q = v.seqlen_k = 7000;  // the longest
  out.push_back({"held-out", "varlen serving mix", v});
  return out;
}

}  // namespace attention
