// Who loads what in a cluster of blocks that share one operand by TMA multicast, as functions the kernel, the host
// tests and the ring model all call.
//
// Chapter 08's cluster is `size` blocks (2) stacked along M: block rank r computes the M tile size * row + r of
// cluster tile (row, col), and all of them the same N tile, so they read the same B panel. Instead of each block
// loading all BlockN rows of B, block r loads rows [r * BlockN / size, (r + 1) * BlockN / size) of it and multicasts
// them to every block of the cluster (mask: all `size` bits); A it loads alone. Each block's "full" barrier then
// counts the bytes of its own A box and of every part of B, whoever sent it, and a stage may be refilled only when the
// consumers of every block have released it, since a multicast writes into all of them: each block's "empty" barrier
// expects consumers * size arrivals, one per consumer warpgroup of every block of the cluster.
// Units: ranks, tiles, rows, bytes. Preconditions: 1 <= size <= 16 (a multicast mask has 16 bits); size divides
// block_n. Errors: none (host and device code).
// Source: PTX ISA, "cp.async.bulk.tensor" (.multicast::cluster, ctaMask) and "mbarrier" (arrival counts); CUDA C++
// Programming Guide, "Thread Block Clusters".
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace tc {

// The multicast mask that reaches every block of a cluster of `size`: bit r for rank r.
__host__ __device__ constexpr std::uint16_t cluster_multicast_mask(int size) {
  return static_cast<std::uint16_t>((1u << size) - 1u);
}

// The M tile that block `rank` computes in cluster-tile row `row`.
__host__ __device__ constexpr int cluster_tile_m(int row, int rank, int size) { return row * size + rank; }

// Cluster-tile rows needed to cover tiles_m M tiles (the last cluster may hang over the edge by size - 1 tiles,
// whose loads TMA fills with zeros and whose stores are clipped).
__host__ __device__ constexpr int cluster_tile_rows(int tiles_m, int size) { return (tiles_m + size - 1) / size; }

// The first row of the part of the shared B tile (block_n rows) that block `rank` loads and multicasts; the part has
// block_n / size rows.
__host__ __device__ constexpr int cluster_b_part_first_row(int rank, int block_n, int size) {
  return rank * (block_n / size);
}

// The arrivals that release one stage of one block: every consumer warpgroup of every block of the cluster.
__host__ __device__ constexpr int cluster_empty_arrivals(int consumers, int size) { return consumers * size; }

// The bytes one block's "full" barrier counts per stage: its A box, and all of B (its own part and its peers').
__host__ __device__ constexpr int cluster_full_bytes(int a_box_bytes, int b_tile_bytes) {
  return a_box_bytes + b_tile_bytes;
}

}  // namespace tc
