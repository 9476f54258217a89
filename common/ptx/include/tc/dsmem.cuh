// Loads from another block's shared memory (distributed shared memory), as PTX wrappers named after the instruction:
// what a cluster's blocks use to sum each other's partial results (chapter 10's split-K).
//
// A block of a cluster reads a peer's shared memory at a shared::cluster address, which tc::mapa_shared_cluster
// (tc/cluster.cuh) makes from this block's address of the same object and the peer's rank. The peer's writes must be
// visible first: a barrier.cluster with release and acquire semantics between them (tc::cluster_sync) makes them so,
// and a second one before the peer exits keeps its shared memory alive while others read it.
// Preconditions: sm_90; a kernel launched with a cluster dimension; the address 4-byte (f32) or 16-byte (v4.f32)
// aligned. Errors: none reported; an address outside the cluster's shared memory is undefined behaviour.
// Source: PTX ISA, "ld" (the .shared::cluster state space), "mapa", "barrier.cluster"; CUDA C++ Programming Guide,
// "Distributed Shared Memory".
#pragma once

#include <cstdint>

namespace tc {

// ld.shared::cluster.f32: the float at shared::cluster address `address`.
__device__ inline float ld_shared_cluster_f32(std::uint32_t address) {
  float value;
  asm volatile("ld.shared::cluster.f32 %0, [%1];\n" : "=f"(value) : "r"(address) : "memory");
  return value;
}

}  // namespace tc
