// Chapter 10 -- the shape suite: the GEMMs an LLM runs, as the chapter's kernels and yardsticks see them.
//
// A linear layer y = x W^T takes M tokens (x: M x K, row-major, one token a row) through a weight W of N x K with K
// contiguous (each output feature's K weights in a row, as PyTorch's nn.Linear stores them), and writes y: M x N,
// row-major, one token a row, as the next layer reads it. The suite is the linear layers of Llama-3-8B and -70B, each
// at M in {1, 16, 64, 128, 512, 2048, 8192} tokens: decoding one sequence up to prefilling a long prompt.
//
// The kernels of this project (and cuBLAS) write a column-major C. A row-major y of M x N is, byte for byte, the
// column-major N x M matrix y^T = W x^T. So every kernel here computes that: cuBLAS's m is the layer's N (W is op(A),
// stored K-major: op T), its n the tokens (x^T is op(B), K-major too: op N), ldc = N. This is "swap-AB": the weights
// take the kernel's M, the tokens its N, and M = 1 makes ldc = N elements, not the 2 bytes a column-major y would
// need, which TMA cannot describe (its strides are multiples of 16 bytes). PyTorch's F.linear calls cuBLAS the same
// way, so the yardsticks get exactly what a model gives them.
// Host only, pure. Errors: std::invalid_argument from suite() for a token count below 1.
#pragma once

#include "tc/gemm_check.hpp"  // tc::GemmProblem
#include "tc/layouts/waves.hpp"
#include "tc/types.hpp"       // tc::Op

#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

// [doc:suite]
// One linear layer's weight, N x K with K contiguous. Llama-3's QKV projection is one matrix of the query, key and
// value heads side by side (4096 + 2 x 1024 rows for 8B: grouped-query attention), and gate+up the two MLP inputs
// side by side, as inference engines fuse them.
struct LinearLayer {
  const char* model;  // the suite: "8B" or "70B" (Llama-3-8B or -70B); the held-out suite: kHeldOutLayers says
  const char* name;   // "QKV", "O", "gate+up", "down", or a held-out layer's own (kHeldOutLayers)
  int n, k;
};

inline constexpr LinearLayer kLlamaLayers[] = {
    {"8B", "QKV", 6144, 4096},      {"8B", "O", 4096, 4096},      {"8B", "gate+up", 28672, 4096},
    {"8B", "down", 4096, 14336},    {"70B", "QKV", 10240, 8192},  {"70B", "O", 8192, 8192},
    {"70B", "gate+up", 57344, 8192}, {"70B", "down", 8192, 28672}};

// The token counts of the full suite, and of the short one (Llama-3-8B alone), the default.
inline const std::vector<int> kSuiteTokens = {1, 16, 64, 128, 512, 2048, 8192};
inline const std::vector<int> kShortSuiteTokens = {1, 64, 2048};
// [/doc:suite]

// One shape of the suite: layer at m tokens.
struct SuiteShape {
  int m = 1;  // tokens
  LinearLayer layer{};
  int n() const { return layer.n; }
  int k() const { return layer.k; }
  std::string name() const {
    return std::string(layer.model) + " " + layer.name + " " + std::to_string(m) + "x" + std::to_string(layer.n) +
           "x" + std::to_string(layer.k);
  }
  // The GEMM the kernels and yardsticks run (the header says why): y^T (N x M, column-major, ldc = N) = W x^T, W as
  // op(A) = op T of a K x N column-major array (lda = K), x^T as op(B) = op N of a K x M one (ldb = K).
  tc::GemmProblem problem(double alpha = 1.0, double beta = 0.0) const {
    return tc::GemmProblem::tight(tc::Op::T, tc::Op::N, layer.n, m, layer.k, alpha, beta);
  }
  // 2 M N K.
  double flops() const { return 2.0 * double(m) * layer.n * layer.k; }
  // Bytes of bf16 operands a launch must move at least: x and W read, y written (and read too where beta != 0).
  double operand_bytes(bool reads_c = false) const {
    const double c = double(m) * layer.n * (reads_c ? 2 : 1);
    return 2.0 * (double(m) * layer.k + double(layer.n) * layer.k + c);
  }
  double weight_bytes() const { return 2.0 * double(layer.n) * layer.k; }
};

// [doc:step_plan]
// What a step runs at one shape, and where its time goes: its schedule in words, its work units (tiles) in waves on
// the GPU's persistent grid or SMs (tc::waves_of), and the SMs the last wave leaves idle. Scheduled<Step>::plan fills
// it on the host from the schedule the step chooses (schedules.cuh), for the table.
struct StepPlan {
  std::string schedule;
  tc::Waves waves;
  int idle_sms_last_wave = 0;
};
// [/doc:step_plan]

// [doc:held_out]
// The held-out suite: the linear layers of other open models, never used to tune a step or the choice, only measured
// (--suite held-out, and with --bench beside the suite). Each weight is N x K as the model's config.json gives it
// (hidden_size, intermediate_size, num_attention_heads and num_key_value_heads, head_dim 128 unless said): QKV is
// (heads + 2 kv heads) x 128 rows by hidden, O hidden by heads x 128, gate+up 2 x intermediate by hidden, down hidden
// by intermediate. The last three are tensor-parallel shards, down's K split over the GPUs as a row-parallel layer
// splits it: their K is a multiple of 8 (a TMA stride) but not of 64 (a K slice).
inline constexpr LinearLayer kHeldOutLayers[] = {
    // L405B, Llama-3.1-405B: hidden 16384, intermediate 53248, 128 heads, 8 kv heads.
    {"L405B", "QKV", 18432, 16384}, {"L405B", "O", 16384, 16384}, {"L405B", "gate+up", 106496, 16384},
    {"L405B", "down", 16384, 53248},
    // Qw7B, Qwen2.5-7B: hidden 3584, intermediate 18944, 28 heads, 4 kv heads.
    {"Qw7B", "QKV", 4608, 3584}, {"Qw7B", "O", 3584, 3584}, {"Qw7B", "gate+up", 37888, 3584},
    {"Qw7B", "down", 3584, 18944},
    // Qw72B, Qwen2.5-72B: hidden 8192, intermediate 29568 (its QKV and O are Llama-3-70B's, so not held out).
    {"Qw72B", "gate+up", 59136, 8192}, {"Qw72B", "down", 8192, 29568},
    // Mx22B, Mixtral-8x22B: hidden 6144, intermediate 16384 an expert (one expert's weights, as a dense GEMM), 48
    // heads, 8 kv heads.
    {"Mx22B", "QKV", 8192, 6144}, {"Mx22B", "O", 6144, 6144}, {"Mx22B", "gate+up", 32768, 6144},
    {"Mx22B", "down", 6144, 16384},
    // Nemo, Mistral-Nemo-12B: hidden 5120, intermediate 14336, 32 heads, 8 kv heads (heads x 128 = 4096, not hidden).
    {"Nemo", "QKV", 6144, 5120}, {"Nemo", "O", 5120, 4096}, {"Nemo", "gate+up", 28672, 5120},
    {"Nemo", "down", 5120, 14336},
    // DeepSeek-V3's dense layers (the first three): hidden 7168, intermediate 18432; and its attention's low-rank
    // projections (multi-head latent attention): kv_a 7168 -> 512 + 64, q_b 1536 -> 128 heads x 192.
    {"DSV3", "gate+up", 36864, 7168}, {"DSV3", "down", 7168, 18432}, {"DSV3", "kv_a", 576, 7168},
    {"DSV3", "q_b", 24576, 1536},
    // Tensor-parallel shards of down: Qwen2.5-72B over 8 GPUs (29568 / 8), Baichuan2-13B over 8 (hidden 5120,
    // intermediate 13696: 13696 / 8) and ChatGLM3-6B over 4 (hidden 4096, ffn_hidden_size 13696: 13696 / 4).
    {"Qw72B", "down/8", 8192, 3696}, {"Bc13B", "down/8", 5120, 1712}, {"GLM6B", "down/4", 4096, 3424}};

// Token counts of the held-out suite: two a layer, drawn log-uniformly from 1 to 8192 (M = round(2^(13 u)), u uniform
// in [0, 1) from std::mt19937's 32-bit words, which the standard fixes bit for bit, so every platform draws the same).
inline constexpr unsigned kHeldOutSeed = 20261129;
inline constexpr int kHeldOutTokensALayer = 2;
// [/doc:held_out]

// The held-out suite: every layer of kHeldOutLayers at its drawn token counts (or at each of tokens, where given), in
// the order of kHeldOutLayers. Errors: std::invalid_argument for a token count below 1.
inline std::vector<SuiteShape> held_out_suite(const std::vector<int>& tokens = {}) {
  std::mt19937 words(kHeldOutSeed);
  std::vector<SuiteShape> shapes;
  for (const LinearLayer& layer : kHeldOutLayers) {
    if (!tokens.empty()) {
      for (int m : tokens) {
        if (m < 1) throw std::invalid_argument("held_out_suite: a token count must be >= 1, got " + std::to_string(m));
        shapes.push_back({m, layer});
      }
      continue;
    }
    for (int i = 0; i < kHeldOutTokensALayer; ++i) {
      const double u = double(words()) / 4294967296.0;  // [0, 1): a 32-bit word over 2^32
      shapes.push_back({int(std::lround(std::exp2(13.0 * u))), layer});
    }
  }
  return shapes;
}

// The suite: every layer of the models asked for (full: both; else Llama-3-8B alone), each at every token count, in
// the order of kLlamaLayers, then of tokens. Errors: std::invalid_argument for a token count below 1.
inline std::vector<SuiteShape> suite(bool both_models, const std::vector<int>& tokens) {
  std::vector<SuiteShape> shapes;
  for (const LinearLayer& layer : kLlamaLayers) {
    if (!both_models && std::string(layer.model) != "8B") continue;
    for (int m : tokens) {
      if (m < 1) throw std::invalid_argument("suite: a token count must be >= 1, got " + std::to_string(m));
      shapes.push_back({m, layer});
    }
  }
  return shapes;
}
