// ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared.b16: one warp loads 1, 2 or 4 8 x 8 matrices of 16-bit
// elements from shared memory into registers, in the fragment layout mma.sync wants. Device code; include from .cu
// files only.
//
// Every lane passes one shared-memory address: lane l's is row l % 8 of matrix l / 8 (16 contiguous bytes). Lane l
// receives register r = matrix r, holding row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1 (the lower-numbered column
// in bits 0..15); with .trans, rows 2 (l % 4) and 2 (l % 4) + 1 of column l / 4. tc/layouts/ldmatrix.hpp holds both
// maps as functions, which the host tests, the GPU probe (chapter 06) and the figures use.
// Why it exists: one LDSM instruction moves what took a warp four 32-bit LDS per register before (chapter 05), and
// its 8 row addresses may lie anywhere (any line stride, any swizzle) as long as each is 16-byte aligned.
// Preconditions: sm_75 or newer; every address used 16-byte aligned and inside shared memory (a generic address that
// is not shared is undefined behaviour); all 32 lanes execute it together (.aligned), each passing an address even
// where .x1/.x2 ignore it (lanes 8..31 and 16..31).
// Errors: none at run time; a misaligned address is a misaligned-address fault.
// Source: PTX ISA, section 9.7.14.5.15 "Warp-level matrix load instruction: ldmatrix".
#pragma once

#include "tc/shared_address.cuh"

#include <cuda_runtime.h>

#include <cstdint>

namespace tc {

// [doc:wrappers]
// One 8 x 8 matrix: r[0].
__device__ inline void ldmatrix_x1(std::uint32_t (&r)[1], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n" : "=r"(r[0]) : "r"(shared_address(row)));
}
// Two matrices: r[0] from lanes 0..7's rows, r[1] from lanes 8..15's.
__device__ inline void ldmatrix_x2(std::uint32_t (&r)[2], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(shared_address(row)));
}
// Four matrices: r[i] from lanes 8i..8i+7's rows.
__device__ inline void ldmatrix_x4(std::uint32_t (&r)[4], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(row)));
}
// The same, each matrix delivered transposed.
__device__ inline void ldmatrix_x1_trans(std::uint32_t (&r)[1], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n" : "=r"(r[0]) : "r"(shared_address(row)));
}
__device__ inline void ldmatrix_x2_trans(std::uint32_t (&r)[2], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(shared_address(row)));
}
__device__ inline void ldmatrix_x4_trans(std::uint32_t (&r)[4], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(row)));
}
// [/doc:wrappers]

}  // namespace tc
