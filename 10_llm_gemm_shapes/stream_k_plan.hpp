// Chapter 10 -- stream-K's assignment: which multiply-accumulate iterations each cluster runs, and who finishes a tile
// that several clusters share (Osama, Merrill, Cecka, Garland, Kerr: "Stream-K: Work-centric Parallel Decomposition
// for Dense Matrix Multiplication on the GPU", PPoPP 2023, Algorithm 5).
//
// An iteration is one slice of K of one cluster tile: tile t's iterations are t * slices .. (t + 1) * slices - 1, and
// all of them are numbered in a row. Cluster c of `clusters` runs the contiguous range [begin(c), end(c)): every
// cluster an equal share, to within one iteration, whatever the tile count. A range can start and end inside a tile.
// The cluster that runs a tile's first iteration "owns" it: it finishes the tile and stores C. Every other cluster
// that runs some of the tile's iterations does so at the start of its own range (the tile is its first), so it writes
// its partial sum to a workspace slot of its own early, and raises its flag; the owner reaches the tile at the end of
// its range, waits for each flag in cluster order, and adds the partials in that order: the same sum, bit for bit, on
// every run of the same grid. A cluster writes at most one partial (only its range's first tile can start before it),
// so the workspace is one tile's partial per block.
// Host and device, pure: the host tests check it, and the kernel (step4_stream_k.cuh) walks it. Iterations are ints,
// which is what the producer's few registers can hold: precondition tiles * slices * clusters < 2^31 (fits(), which
// the launcher checks; Llama-3-70B's gate+up at 8192 tokens makes 4,800 tiles of 128 slices: 39 million on 64
// clusters).
#pragma once

namespace stream_k {

struct Plan {
  int tiles = 0;     // cluster tiles
  int slices = 0;    // iterations a tile: slices of K
  int clusters = 1;  // the persistent grid's clusters

  // Whether every product below fits an int.
  constexpr bool fits() const { return static_cast<long long>(tiles) * slices * (clusters + 1) < (1LL << 31); }
  __host__ __device__ constexpr int total() const { return tiles * slices; }
  // Cluster c's iterations: [begin(c), end(c)), floor(c * total / clusters) on. Empty where total < clusters.
  __host__ __device__ constexpr int begin(int c) const { return total() * c / clusters; }
  __host__ __device__ constexpr int end(int c) const { return begin(c + 1); }
  // The cluster whose range holds iteration i (0 <= i < total): the largest c with begin(c) <= i, which is
  // ceil((i + 1) * clusters / total) - 1.
  __host__ __device__ constexpr int cluster_of(int i) const { return ((i + 1) * clusters + total() - 1) / total() - 1; }
  // Tile t's owner, which runs its first iteration, and the last cluster that runs any of it.
  __host__ __device__ constexpr int owner(int t) const { return cluster_of(t * slices); }
  __host__ __device__ constexpr int last(int t) const { return cluster_of((t + 1) * slices - 1); }
  // Whether cluster c runs any iteration (with fewer iterations than clusters, some run none).
  __host__ __device__ constexpr bool works(int c) const { return begin(c) < end(c); }
};

// The part of one tile that a cluster runs: slices [first, last) of tile `tile`, from its range's iteration `at` on.
struct Span {
  int tile = 0;
  int first = 0, last = 0;  // slices of K
  __host__ __device__ constexpr bool starts_tile() const { return first == 0; }  // the owner's span
};

// The span at iteration `at` of a range that ends at `end` (at < end).
__host__ __device__ constexpr Span span_at(const Plan& p, int at, int end) {
  const int tile = at / p.slices, tile_begin = tile * p.slices;
  const int stop = end < tile_begin + p.slices ? end : tile_begin + p.slices;
  return {tile, at - tile_begin, stop - tile_begin};
}

}  // namespace stream_k
