// The warp-specialized skeleton: the parts every persistent, clustered kernel here shares around its own slice loop
// and epilogue (chapter 08's step 5, chapter 09's steps, chapter 10's stream-K; attention's K and V rings).
//
// A kernel on it has, per ring of `Stages` shared-memory stages:
//   - the set-up: thread 0 of each block initialises every stage's "full" barrier (one arrival, the producer's, plus
//     the bytes its TMA loads bring) and "empty" barrier (one arrival per consumer warpgroup of every block of the
//     cluster), fenced for the TMA unit and the peers; then ws_cluster_start() orders every peer's first use of them
//     (a multicast into this block, a remote arrival) after the init. A kernel with two rings (attention: K and V)
//     initialises both before the one start.
//   - the consumer's side: WsConsumerRing waits for a slice's stage (wait) and gives a stage back to this block's
//     producer and to every peer's, whose multicasts also wrote it (release, by the warpgroup's leader thread).
//   - the held stage: a consumer that stages its epilogue in the tile's last stage (the stage only it read, chapter
//     08's step 5) holds that stage past the tile, and gives it back during the next tile's first slice, once the TMA
//     stores have read it (WsHeldStage).
//   - the exit: ws_cluster_finish(), so that no block leaves (its shared memory with it) while a peer can still
//     multicast into it or arrive on its barriers.
// The producer's side is tc::ws_load_tiles (tc/ws_producer.cuh): per slice it waits for the stage's "empty"
// barrier, announces the bytes, and issues its loads through a load policy.
// Preconditions: sm_90a; launched in clusters of `Cluster` blocks along x; barriers 8-byte aligned in shared memory,
// a ring's consecutive. Errors: none reported; misuse hangs. Source: PTX ISA, "mbarrier" (init, arrive, try_wait,
// .shared::cluster), "fence.mbarrier_init", "barrier.cluster", "mapa", "cp.async.bulk.wait_group.read".
#pragma once

#include "tc/cluster.cuh"
#include "tc/layouts/cluster.hpp"
#include "tc/layouts/mbarrier_ring.hpp"
#include "tc/mbarrier.cuh"
#include "tc/shared_address.cuh"
#include "tc/tma_store.cuh"

#include <cstdint>

namespace tc {

// [doc:ring_init]
// Thread 0: every stage's "full" barrier (the producer's arrival, plus every loaded part's bytes) and "empty" barrier
// (kConsumers warpgroups of each of the Cluster blocks arrive once a stage is read), fenced for the TMA unit, which
// completes bytes on them, and for the peers, which arrive on them remotely. Other threads do nothing; every thread
// then calls ws_cluster_start.
template <int Stages, int Consumers, int Cluster>
__device__ inline void ws_ring_init(std::uint64_t* full, std::uint64_t* empty) {
  if (threadIdx.x != 0) return;
  for (int i = 0; i < Stages; ++i) {
    mbarrier_init(&full[i], 1);
    mbarrier_init(&empty[i], cluster_empty_arrivals(Consumers, Cluster));
  }
  fence_mbarrier_init_release_cluster();
}

// Every thread of every block: no thread waits on a barrier before it exists, and no peer multicasts into this block
// or arrives on its barriers before they exist: the cluster barrier orders the peers' first use after the init.
__device__ inline void ws_cluster_start() { cluster_sync(); }

// Every thread of every block, at its end: a block leaves only when no peer can still multicast into it or arrive on
// its barriers, i.e. after every peer's consumers have made their last release (their arrivals precede the barrier).
// Warp 0 reconverges first: its thread 0 ran the producer's loop alone, and barrier.cluster is .aligned.
__device__ inline void ws_cluster_finish() {
  __syncwarp();
  cluster_sync();
}
// [/doc:ring_init]

// [doc:consumer_ring]
// A consumer warpgroup's view of one ring: the "full" barriers' address and every rank's "empty" barriers, computed
// once (barriers are 8 bytes apart), so that the slice loop only adds.
template <int Stages, int Cluster>
struct WsConsumerRing {
  std::uint32_t full_first;
  std::uint32_t empty_first[Cluster];
  bool leader;  // thread 0 of the warpgroup: the one that releases

  __device__ WsConsumerRing(std::uint64_t* full, std::uint64_t* empty)
      : full_first(shared_address(full)), leader(threadIdx.x % 128 == 0) {
#pragma unroll
    for (int r = 0; r < Cluster; ++r) empty_first[r] = mapa_shared_cluster(empty, r);
  }

  // Waits until slice `it` (counted over every tile this block has walked) has landed; its stage and parity.
  __device__ RingSlot wait(int it) const {
    const RingSlot slot = ring_slot(it, Stages);
    mbarrier_wait_parity_at(full_first + 8u * slot.stage, slot.parity);
    return slot;
  }

  // The warpgroup has finished reading `stage`: its leader tells this block's producer and every peer's (each
  // multicast part of B was written by one of them). Call it from every thread; only the leader arrives.
  __device__ void release(int stage) const {
    if (!leader) return;
#pragma unroll
    for (int r = 0; r < Cluster; ++r) mbarrier_arrive_cluster(empty_first[r] + 8u * stage);
  }
};
// [/doc:consumer_ring]

// [doc:held_stage]
// The stage a consumer's last epilogue staged C in, held past its tile: no load may overwrite it before the TMA
// stores have read it. hold() or hold_last() takes the tile's last stage (or none where the tile had no slice);
// give_back(), called in the next tile after its first slice, waits for the stores' reads (the leader issued them
// all, so its wait covers them; a slice later they have drained) and releases it.
struct WsHeldStage {
  int stage = -1;  // -1: none held

  __device__ void hold(int last_stage) { stage = last_stage; }

  // After a tile's slices, `it` counting the slices over the block's run: holds the tile's last stage (slice it - 1)
  // and returns it. A tile with no slice (k = 0) loaded none, so every stage is free: it holds none and returns 0.
  __device__ int hold_last(int it, int slices, int stages) {
    if (slices == 0) return 0;
    hold(ring_slot(it - 1, stages).stage);
    return stage;
  }

  template <typename Ring>
  __device__ void give_back(const Ring& ring) {
    if (stage < 0) return;
    if (ring.leader) {
      cp_async_bulk_wait_group_read<0>();
      ring.release(stage);
    }
    stage = -1;
  }
};
// [/doc:held_stage]

}  // namespace tc
