// Chapter 10 -- what every step is to the project's launchers: the operands and contract all of them take
// (SuiteStep). Host code.
#pragma once

#include "tc/layouts/tags.hpp"
#include "tc/tile_contract.hpp"
#include "tc/types.hpp"

// [doc:suite_step]
// What every step of the chapter is, as the project's launchers take it (tc/padded_gemm.hpp): bf16 in, fp32
// accumulate, bf16 C; A (the weights) row-major M x K, B (the tokens) column-major K x N, C column-major, all as
// suite.hpp maps a layer onto them. Any M, N, K: TMA clips the edges; operands TMA cannot address (a K or an N off 8
// elements) take the padded path. The contract is chapter 08's kernel's (its TMA store of C), the strictest any step
// runs.
struct SuiteStep {
  using Precision = tc::BF16F32BF16;
  using LayoutA = tc::RowMajor;
  using LayoutB = tc::ColMajor;
  static constexpr tc::TileContract kContract{{1, 1, 1}, tc::kTmaOperandRule, tc::kTmaStoreOperandRule};
};
// [/doc:suite_step]
