// Thread-block clusters: a block's rank, the cluster barrier, another block's shared memory, and the multicast TMA
// load, as PTX wrappers named after their instructions.
//
// A cluster is a group of blocks (here 2) that the hardware schedules together on one GPC, and whose shared memories
// each block may address ("distributed shared memory"). A shared::cluster address names a byte in one block of the
// cluster: mapa turns this block's address of an object into the same object's address in block `rank`. A multicast
// TMA load writes one box into the shared memory of every block in its mask, at the same offset in each, and counts
// its bytes off the mbarrier at the same offset in each.
// Preconditions: sm_90 (clusters, mapa, barrier.cluster, .multicast::cluster); the kernel launched with a cluster
// dimension (__cluster_dims__ or cudaLaunchKernelEx); shared pointers are generic addresses of __shared__ objects.
// Errors: none reported; a bad rank or mask is undefined behaviour (a hang, or bytes in the wrong block).
// Source: PTX ISA, "Special Registers: %cluster_ctarank", "barrier.cluster", "mapa", "mbarrier.arrive" (.cluster
// scope, shared::cluster), "cp.async.bulk.tensor" (.multicast::cluster); CUDA C++ Programming Guide, "Thread Block
// Clusters" and "Distributed Shared Memory".
#pragma once

#include "tc/mbarrier.cuh"

#include <cuda.h>  // CUtensorMap

#include <cstdint>

namespace tc {

// %cluster_ctarank: this block's rank in its cluster, 0 .. cluster size - 1.
__device__ inline int cluster_ctarank() {
  std::uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  return static_cast<int>(rank);
}

// barrier.cluster.arrive.release.aligned + barrier.cluster.wait.acquire.aligned: every thread of every block of the
// cluster arrives, then waits for all of them. Release/acquire: this block's earlier shared-memory writes (the
// initialised mbarriers among them) are visible to the other blocks after the wait. All threads of the block call it.
__device__ inline void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}

// mapa.shared::cluster.u32: the shared::cluster address of the object at `p` (in this block) in block `rank`.
__device__ inline std::uint32_t mapa_shared_cluster(const void* p, int rank) {
  std::uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(shared_address(p)), "r"(rank));
  return remote;
}

// mbarrier.arrive.shared::cluster.b64: one arrival on the mbarrier at shared::cluster address `remote_bar` (from
// mapa_shared_cluster; this block's own rank works too), with the default .release.cta semantics. A consumer uses it
// to say "my wgmmas have finished reading this stage" (wgmma.wait_group completed them): nothing it wrote needs to
// become visible to the peer, so no cluster-scope release is needed; chapter 08 measured one
// (mbarrier.arrive.release.cluster) making its clustered kernel far slower (docs/08, "Step 3").
__device__ inline void mbarrier_arrive_cluster(std::uint32_t remote_bar) {
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(remote_bar) : "memory");
}

// cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster: the box at element
// coordinates (inner, row) of `map` into shared `dst` of every block whose bit is set in `cta_mask` (bit r: rank r),
// each copy's bytes counted off the mbarrier at `bar`'s offset in that block. Issued by one thread of one block.
__device__ inline void cp_async_bulk_tensor_2d_global_to_shared_multicast(void* dst, const CUtensorMap* map, int inner,
                                                                           int row, std::uint64_t* bar,
                                                                           std::uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(shared_address(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(inner), "r"(row), "r"(shared_address(bar)), "h"(cta_mask)
      : "memory");
}

}  // namespace tc
