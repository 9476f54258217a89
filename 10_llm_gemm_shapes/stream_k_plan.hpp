// Chapter 10 -- stream-K's assignment: which multiply-accumulate iterations each cluster runs, and who finishes a tile
// that several clusters share (Osama, Merrill, Cecka, Garland, Kerr: "Stream-K: Work-centric Parallel Decomposition
// for Dense Matrix Multiplication on the GPU", PPoPP 2023: Algorithm 5, and the paper's hybrid "two-tile Stream-K +
// data-parallel").
//
// An iteration is one slice of K of one cluster tile. The tiles that fill whole waves of the clusters run as chapter 08
// runs them, one whole tile a cluster a wave ("data-parallel"), in chapter 08's order, so the clusters of a wave read
// neighbouring rows and columns of the operands at the same K and share them in L2. Only the rest is streamed: the
// last full wave and the partial one after it, the first sk_tiles() tiles, whose iterations are numbered in a row,
// tile by tile. Cluster c runs the contiguous range [begin(c), end(c)) of them, an equal share to within one
// iteration (between one and two tiles' worth when there are more tiles than clusters), then its data-parallel tiles.
// Streaming every tile instead would start cluster c at tile c T / C: 64 unrelated parts of the operands at 64 K
// offsets at once, with no reuse in L2.
// A range can start and end inside a tile. The cluster that runs a tile's first iteration "owns" it: it finishes the
// tile and stores C. Every other cluster that runs some of the tile's iterations does so at the start of its own range
// (the tile is its first), so it writes its partial sum to a workspace slot of its own early, and raises its flag; the
// owner reaches the tile at the end of its range, waits for each flag in cluster order, and adds the partials in that
// order: the same sum, bit for bit, on every run of the same grid. A cluster writes at most one partial (only its
// range's first tile can start before it), so the workspace is one tile's partial per block.
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
  // The streamed tiles, 0 .. sk_tiles() - 1: none where the tiles fill whole waves, all where there are fewer than
  // clusters, else the last full wave and the remainder (each cluster then streams one to two tiles' worth).
  __host__ __device__ constexpr int sk_tiles() const {
    return tiles % clusters == 0 ? 0 : tiles < clusters ? tiles : clusters + tiles % clusters;
  }
  // The data-parallel waves after the streamed tiles: every cluster runs that many whole tiles.
  __host__ __device__ constexpr int dp_waves() const { return (tiles - sk_tiles()) / clusters; }
  __host__ __device__ constexpr int sk_total() const { return sk_tiles() * slices; }  // streamed iterations
  // Cluster c's streamed iterations: [begin(c), end(c)), floor(c * sk_total / clusters) on. Empty where
  // sk_total < clusters.
  __host__ __device__ constexpr int begin(int c) const { return sk_total() * c / clusters; }
  __host__ __device__ constexpr int end(int c) const { return begin(c + 1); }
  // Where cluster c's work ends, counted on from begin(c): its streamed iterations, then its whole tiles' slices.
  __host__ __device__ constexpr int finish(int c) const { return end(c) + dp_waves() * slices; }
  // The cluster whose range holds streamed iteration i (0 <= i < sk_total): the largest c with begin(c) <= i, which is
  // ceil((i + 1) * clusters / sk_total) - 1.
  __host__ __device__ constexpr int cluster_of(int i) const {
    return ((i + 1) * clusters + sk_total() - 1) / sk_total() - 1;
  }
  // Tile t's owner, which runs its first iteration, and the last cluster that runs any of it (the owner itself for a
  // data-parallel tile).
  __host__ __device__ constexpr int owner(int t) const {
    return t < sk_tiles() ? cluster_of(t * slices) : (t - sk_tiles()) % clusters;
  }
  __host__ __device__ constexpr int last(int t) const {
    return t < sk_tiles() ? cluster_of((t + 1) * slices - 1) : owner(t);
  }
  // Whether cluster c streams any iteration (with fewer iterations than clusters, some stream none).
  __host__ __device__ constexpr bool works(int c) const { return begin(c) < end(c); }
};

// The part of one tile that a cluster runs: slices [first, last) of tile `tile`.
struct Span {
  int tile = 0;
  int first = 0, last = 0;  // slices of K
  __host__ __device__ constexpr bool starts_tile() const { return first == 0; }  // the owner's span
};

// Cluster c's span at `at` (begin(c) <= at < finish(c)): a streamed span up to end(c), then whole tiles
// sk_tiles() + c, + clusters, ... A walk adds each span's length to `at`.
__host__ __device__ constexpr Span span_at(const Plan& p, int c, int at) {
  if (at >= p.end(c)) {
    const int wave = (at - p.end(c)) / p.slices;
    return {p.sk_tiles() + c + wave * p.clusters, 0, p.slices};
  }
  const int tile = at / p.slices, tile_begin = tile * p.slices;
  const int stop = p.end(c) < tile_begin + p.slices ? p.end(c) : tile_begin + p.slices;
  return {tile, at - tile_begin, stop - tile_begin};
}

}  // namespace stream_k
