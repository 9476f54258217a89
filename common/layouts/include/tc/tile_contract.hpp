// What a whole-tile GEMM kernel may assume about its operands, and the one check of it.
//
// A kernel that computes only whole tiles keeps bounds checks out of its inner loop, so it states a contract:
//   - a tile multiple: m, n and k must be multiples of it;
//   - an operand rule for A and B, and one for C: the pointer's alignment and the leading dimension's multiple, in
//     bytes, that the kernel's memory instructions need (WMMA's load/store_matrix_sync: 32-byte pointers and 16-byte
//     ld; a 16-byte cp.async or uint4 load: 16 and 16; a scalar fp32 store: 4 and 4, which every float* keeps).
// Each kernel type states its own contract (kContract), so a kernel with looser memory instructions than WMMA's is
// not sent through padded copies it does not need. tc::launch_gemm_any_size (tc/padded_gemm.hpp) checks the contract
// once, and sends operands that break it through padded scratch copies, which keep it.
// Shapes: cuBLAS's, column-major: op(A) m x k, op(B) k x n, C m x n, with op N or T for A and B (tc/gemm_args.hpp).
// The contract does not depend on the ops: a transposed operand is the same bytes read along the other dimension.
// Units: elements for sizes and leading dimensions, bytes for the rules. Source: CUDA C++ Programming Guide, "Warp
// Matrix Functions" (load_matrix_sync and store_matrix_sync preconditions) and "Device Memory Accesses" (alignment of
// vector accesses); PTX ISA, "cp.async" (16-byte copies need 16-byte aligned addresses).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace tc {

// The multiples of m, n and k that a kernel needs.
struct TileMultiple {
  int m = 1;
  int n = 1;
  int k = 1;
};

// One operand's memory rule: its pointer aligned to pointer_bytes, its leading dimension times the element size a
// multiple of ld_bytes, and (C only) a column's m elements a multiple of column_bytes. `why` names the instruction
// that needs it, for the error message.
struct OperandRule {
  int pointer_bytes = 1;
  int ld_bytes = 1;
  const char* why = "";
  int column_bytes = 1;
};

// WMMA's load_matrix_sync / store_matrix_sync: "mptr must be a 256-bit aligned pointer", ldm a multiple of 16 bytes.
inline constexpr OperandRule kWmmaOperandRule{32, 16, "load/store_matrix_sync"};
// 16-byte copies from global memory (cp.async.cg with 16 bytes, or a uint4 load): every line must start 16-byte
// aligned, so the pointer and ld * sizeof(element) must both be multiples of 16.
inline constexpr OperandRule kVector16OperandRule{16, 16, "a 16-byte global copy"};
// TMA tensor maps (tc/tma.hpp): a 16-byte aligned base and row strides in multiples of 16 bytes.
inline constexpr OperandRule kTmaOperandRule{16, 16, "a TMA tensor map"};
// A TMA store of C (cp.async.bulk.tensor, shared to global): a tensor map's rule, and more. It clips a box at the
// tensor's edge in whole 16-byte pieces of a column, not in elements: on an H200, a column of m = 17 fp32 (68 bytes,
// ldc = 24) came back with rows 17, 18 and 19 of C's padding written (the padded-ld tests of chapter 08). So the
// column, m elements, must be a multiple of 16 bytes, or the launch goes through padded copies, which write m rows.
inline constexpr OperandRule kTmaStoreOperandRule{16, 16, "a TMA store", 16};
// Scalar fp32 stores (and loads, for beta != 0): any float* and any ld keep it.
inline constexpr OperandRule kScalarF32OperandRule{4, 4, "an fp32 store"};

// A kernel's whole contract: its tile multiple, the rule for A and B, and the rule for C.
struct TileContract {
  TileMultiple tile;
  OperandRule ab;
  OperandRule c;
};

// The smallest multiple of `multiple` that is >= x (x >= 0, multiple >= 1).
constexpr int round_up(int x, int multiple) { return (x + multiple - 1) / multiple * multiple; }

// Why `rule` rejects operand `name` (pointer, ld in elements of element_bytes each), or nothing if it keeps it.
inline std::optional<std::string> operand_problem(const OperandRule& rule, const void* pointer, int ld,
                                                  std::size_t element_bytes, const std::string& name) {
  if (reinterpret_cast<std::uintptr_t>(pointer) % std::uintptr_t(rule.pointer_bytes) != 0) {
    return name + " must be " + std::to_string(rule.pointer_bytes) + "-byte aligned for " + rule.why;
  }
  if ((static_cast<std::size_t>(ld) * element_bytes) % std::size_t(rule.ld_bytes) != 0) {
    const std::size_t multiple = element_bytes < std::size_t(rule.ld_bytes) ? rule.ld_bytes / element_bytes : 1;
    return "ld of " + name + " is " + std::to_string(ld) + " elements; " + rule.why + " needs a multiple of " +
           std::to_string(multiple) + " (" + std::to_string(rule.ld_bytes) + " bytes)";
  }
  return std::nullopt;
}

// Why a kernel with `contract` cannot take these operands as they are, or nothing if it can. Sizes and leading
// dimensions are assumed valid (tc::validate_gemm_arguments has run).
template <typename TIn, typename TOut>
std::optional<std::string> tile_contract_problem(const TileContract& contract, int m, int n, int k, const TIn* A,
                                                 int lda, const TIn* B, int ldb, const TOut* C, int ldc) {
  auto not_multiple = [](const char* what, int value, int multiple) -> std::optional<std::string> {
    if (value % multiple == 0) return std::nullopt;
    return std::string(what) + " = " + std::to_string(value) + " is not a multiple of the kernel's tile " +
           std::to_string(multiple);
  };
  if (auto p = not_multiple("m", m, contract.tile.m)) return p;
  if (auto p = not_multiple("n", n, contract.tile.n)) return p;
  if (auto p = not_multiple("k", k, contract.tile.k)) return p;
  if (auto p = operand_problem(contract.ab, A, lda, sizeof(TIn), "A")) return p;
  if (auto p = operand_problem(contract.ab, B, ldb, sizeof(TIn), "B")) return p;
  // C is read (when beta != 0) and written in place with the same instructions, so one rule.
  if (auto p = operand_problem(contract.c, C, ldc, sizeof(TOut), "C")) return p;
  if ((static_cast<std::size_t>(m) * sizeof(TOut)) % std::size_t(contract.c.column_bytes) != 0) {
    return "m = " + std::to_string(m) + " rows of C are " + std::to_string(std::size_t(m) * sizeof(TOut)) +
           " bytes; " + contract.c.why + " writes whole " + std::to_string(contract.c.column_bytes) +
           "-byte pieces of a column, so it needs a multiple of " + std::to_string(contract.c.column_bytes);
  }
  return std::nullopt;
}

}  // namespace tc
