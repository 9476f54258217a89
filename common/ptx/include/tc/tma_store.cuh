// The TMA store and its bulk-group completion, and stmatrix: how an epilogue moves a tile from registers through
// shared memory to global memory, as PTX wrappers named after their instructions.
//
// stmatrix is ldmatrix's inverse (tc/ldmatrix.cuh): a warp stores 8 x 8 matrices of 16-bit elements from the
// fragment layout, every lane passing one 16-byte row address (tc/layouts/stmatrix.hpp holds the map). A TMA store
// (cp.async.bulk.tensor, global <- shared) then copies a box of a tensor map out of shared memory, clipped to the
// tensor's bounds (elements outside it are not written), through the async proxy: the threads that wrote the box with
// ordinary stores must fence.proxy.async (tc/mbarrier.cuh) and synchronise before one thread issues it. Stores are
// tracked in bulk groups: commit_group closes the stores issued so far into one group; wait_group.read N returns
// once at most N groups still read their shared source (it may then be overwritten), wait_group N once at most N
// groups are still writing global memory.
// Preconditions: sm_90; shared addresses 16-byte aligned (128 for a swizzled box, whose swizzle repeats every 1024
// bytes); the map made by tc::make_tma_2d; stmatrix executed by all 32 lanes together (.aligned).
// Errors: none reported; a misaligned address faults, a missing fence gives stale data in global memory.
// Source: PTX ISA, "stmatrix" (9.7.14.5.16), "cp.async.bulk.tensor", "cp.async.bulk.commit_group",
// "cp.async.bulk.wait_group".
#pragma once

#include "tc/mbarrier.cuh"

#include <cuda.h>  // CUtensorMap

#include <cstdint>

namespace tc {

// stmatrix.sync.aligned.m8n8.x4.trans.shared.b16: four 8 x 8 matrices, matrix j from register r[j], each stored
// transposed: lane l's register holds elements (row l/4, columns 2(l%4), 2(l%4)+1) of its matrix (the lower column in
// bits 0..15), and they land at positions l/4 of rows 2(l%4) and 2(l%4)+1 of the stored matrix; lane l passes the
// address of stored row l % 8 of matrix l / 8 (16 contiguous bytes).
__device__ inline void stmatrix_x4_trans(std::uint32_t row_address, const std::uint32_t (&r)[4]) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(row_address),
               "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])
               : "memory");
}

// cp.async.bulk.tensor.2d.global.shared::cta.bulk_group: the box at shared `src` into `map` at element coordinates
// (inner, row), clipped to the tensor. Issued by one thread; tracked by the next commit_group.
__device__ inline void cp_async_bulk_tensor_2d_shared_to_global(const CUtensorMap* map, int inner, int row,
                                                                 const void* src) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n" ::"l"(
                   reinterpret_cast<std::uint64_t>(map)),
               "r"(inner), "r"(row), "r"(shared_address(src))
               : "memory");
}

// cp.async.bulk.commit_group: the bulk stores this thread issued since its last commit become one group.
__device__ inline void cp_async_bulk_commit_group() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }

// cp.async.bulk.wait_group.read N: at most N of this thread's groups still read shared memory. N is an immediate.
template <int N>
__device__ inline void cp_async_bulk_wait_group_read() {
  static_assert(N >= 0 && N <= 7, "a small immediate");
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}

// cp.async.bulk.wait_group N: at most N of this thread's groups are still in flight (writes to global included).
template <int N>
__device__ inline void cp_async_bulk_wait_group() {
  static_assert(N >= 0 && N <= 7, "a small immediate");
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
}

}  // namespace tc
