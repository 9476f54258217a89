// Chapter 08, step 3 -- clusters: two blocks stacked along M share one B tile through TMA multicast.
//
// What it adds over step 2: the two blocks of a cluster compute the M tiles 2r and 2r + 1 of the same N column, so
// both need the same 256 x 64 slice of B every K step. Each now loads only its half of it (128 rows) and multicasts
// that half into both blocks' shared memory: per block and slice, the TMA reads 16 KB of A and 16 KB of B from L2
// instead of 16 + 32, a third less, and L2 serves each B line once per cluster (tc/layouts/cluster.hpp).
// The price is coupling. A block's stage is written by both producers, so it may be refilled only when the consumers
// of both blocks have released it: each consumer arrives on the "empty" barrier of every block (a remote arrive
// through mapa), and "empty" expects 2 x 2 arrivals (tc::simulate_cluster_ring models it, and catches the version
// that releases only its own block). The barriers must exist before a peer's multicast completes on them
// (fence.mbarrier_init.release.cluster, then a cluster barrier), and a block must not exit while a peer may still
// multicast into it or arrive on its barriers (a cluster barrier at the end). The kernel is step 2's, with
// Tile::ClusterM = 2 (step2_persistent.cuh, the kCluster > 1 branches).
#pragma once

#include "step2_persistent.cuh"

// [doc:step3_launch]
struct Step3Cluster {
  static constexpr const char* name = "3 2-block clusters";
  static constexpr tc::OperandRule kCRule = tc::kScalarF32OperandRule;
  template <typename Tile, typename Precision>
  static void launch_kernel(int m, int n, int k, float alpha, const typename Precision::Input* A, int lda,
                            const typename Precision::Input* B, int ldb, float beta, float* C, int ldc,
                            cudaStream_t stream) {
    static_assert(Tile::ClusterM == 2, "step 3 is the 2-block cluster");
    launch_persistent<Tile, typename Precision::Input, DirectEpilogue>(name, m, n, k, alpha, A, lda, B, ldb, beta,
                                                                       {C, ldc}, stream);
  }
};
using Step3Tile = WsTile<4, 2>;
// [/doc:step3_launch]
