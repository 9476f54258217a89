// What a whole-tile GEMM kernel may assume about its operands, and the one check of it.
//
// The WMMA kernels of chapters 02 and 03 compute whole tiles with load_matrix_sync and store_matrix_sync, which cannot
// be predicated element by element. So each states a tile multiple (m, n, k must be multiples of it) and relies on
// WMMA's memory rules for every operand (32-byte aligned pointers, leading dimensions a multiple of 16 bytes;
// tc/wmma_rules.hpp). Launchers check the contract; operands that break it go through padded scratch copies
// (tc/padded_gemm.hpp), which keep it.
// Shapes: cuBLAS's, column-major: op(A) m x k, op(B) k x n, C m x n, with op N or T for A and B (tc/reference.hpp
// gives the leading-dimension rules). The contract itself does not depend on the ops: a transposed operand is the
// same bytes read along the other dimension, and the WMMA rules are about its pointer and ld only.
// Units: elements. Source: CUDA C++ Programming Guide, "Warp Matrix Functions" (load_matrix_sync and
// store_matrix_sync preconditions).
#pragma once

#include "tc/reference.hpp"
#include "tc/wmma_rules.hpp"

#include <optional>
#include <stdexcept>
#include <string>

namespace tc {

// The multiples of m, n and k that a kernel needs.
struct TileMultiple {
  int m = 1;
  int n = 1;
  int k = 1;
};

// The smallest multiple of `multiple` that is >= x (x >= 0, multiple >= 1).
constexpr int round_up(int x, int multiple) { return (x + multiple - 1) / multiple * multiple; }

// Why a kernel with tile multiple `tile` cannot take these operands as they are, or nothing if it can. Sizes and
// leading dimensions are assumed valid (tc::validate_gemm_arguments has run).
template <typename TIn, typename TOut>
std::optional<std::string> tile_contract_problem(TileMultiple tile, int m, int n, int k, const TIn* A, int lda,
                                                 const TIn* B, int ldb, const TOut* C, int ldc) {
  auto not_multiple = [](const char* what, int value, int multiple) -> std::optional<std::string> {
    if (value % multiple == 0) return std::nullopt;
    return std::string(what) + " = " + std::to_string(value) + " is not a multiple of the kernel's tile " +
           std::to_string(multiple);
  };
  if (auto p = not_multiple("m", m, tile.m)) return p;
  if (auto p = not_multiple("n", n, tile.n)) return p;
  if (auto p = not_multiple("k", k, tile.k)) return p;
  if (auto p = wmma_operand_problem(A, lda, sizeof(TIn), "A")) return p;
  if (auto p = wmma_operand_problem(B, ldb, sizeof(TIn), "B")) return p;
  // C is read (when beta != 0) and written in place with the same fragment loads and stores, so one rule.
  if (auto p = wmma_operand_problem(C, ldc, sizeof(TOut), "C")) return p;
  return std::nullopt;
}

// What every whole-tile kernel launch checks before launching: cuBLAS's argument rules for ops (op_a, op_b), then
// the tile contract. Errors: std::invalid_argument, one line starting with `kernel`. Returns false when there is
// nothing to compute (m or n is 0), so the caller skips the launch, whose grid would be empty.
template <typename TIn, typename TOut>
bool check_tiled_launch(const char* kernel, TileMultiple tile, Op op_a, Op op_b, int m, int n, int k, const TIn* A,
                        int lda, const TIn* B, int ldb, const TOut* C, int ldc) {
  validate_gemm_arguments(op_a, op_b, m, n, k, lda, ldb, ldc, ldc);
  if (auto problem = tile_contract_problem(tile, m, n, k, A, lda, B, ldb, C, ldc)) {
    throw std::invalid_argument(std::string(kernel) + ": " + *problem);
  }
  return m > 0 && n > 0;
}

}  // namespace tc
