// The mbarrier ring of a multi-stage TMA pipeline: which stage and which phase parity the k-th K tile uses, and a
// host model of the mbarrier's phase rule to test a protocol against.
//
// A ring of S stages has one "full" mbarrier per stage (the TMA's transaction count completes its phase: the tile has
// landed) and, where consumers release stages explicitly, one "empty" mbarrier per stage (every consumer arrived: the
// stage may be overwritten). K tile k lives in stage k % S, and it is the (k / S)-th use of that stage, so the phase
// it waits for has parity (k / S) % 2. An mbarrier starts in phase 0; try_wait.parity(p) succeeds once the phase of
// parity p has completed, that is while the barrier's current phase has the other parity. A producer that waits on
// "empty" with parity ((k / S) % 2) ^ 1 therefore passes at once in the first round (the phase "before" phase 0 counts
// as complete) and afterwards only when the consumers released the stage's previous use.
// Units: K tiles, stages, phases. Preconditions: k >= 0, stages >= 1.
// Source: PTX ISA, "Parallel Synchronization and Communication Instructions: mbarrier" (phase completion,
// mbarrier.try_wait.parity) and "Tensor copy ... mbarrier::complete_tx".
#pragma once

#include <cuda_runtime_api.h>

#include <random>
#include <utility>
#include <vector>

namespace tc {

struct RingSlot {
  int stage;   // 0..stages-1
  int parity;  // the parity of the phase that K tile k completes on its stage's "full" barrier
};

__host__ __device__ constexpr RingSlot ring_slot(int k, int stages) { return {k % stages, (k / stages) % 2}; }

// The parity the consumers of K tile k wait for on its stage's "full" barrier (ring_slot(k, stages).parity).
__host__ __device__ constexpr int ring_full_parity(int k, int stages) { return ring_slot(k, stages).parity; }

// The parity a producer waits for on the "empty" barrier before it writes K tile k (see above): the first round
// passes at once.
__host__ __device__ constexpr int ring_empty_wait_parity(int k, int stages) { return ring_slot(k, stages).parity ^ 1; }

// A host model of one mbarrier: `expected` arrivals complete a phase (the transaction count is folded into one
// arrival here: the TMA's completion is the producer's arrival).
class MbarrierModel {
 public:
  explicit MbarrierModel(int expected = 1) : expected_(expected) {}
  void arrive() {
    if (++arrived_ == expected_) {
      arrived_ = 0;
      ++phase_;
    }
  }
  // mbarrier.try_wait.parity: true once the phase of this parity has completed.
  bool try_wait_parity(int parity) const { return (phase_ % 2) != parity; }
  int completed_phases() const { return phase_; }

 private:
  int expected_;
  int arrived_ = 0;
  int phase_ = 0;  // phases completed so far; the current phase is phase_
};

// One producer and `consumers` consumers run chapter 07 step 3's protocol on a model ring of `stages`, in an order
// drawn from `seed`: the producer writes K tile k into its stage (ring_slot, as the kernel does) after waiting on
// that stage's "empty" barrier for empty_parity(k, stages); each consumer waits on "full" for full_parity(k, stages),
// reads, and arrives on "empty". Returns true when all `slices` tiles were read, each from the stage that held it;
// false if the producer overwrote a stage a consumer had not released, a consumer read a stage holding another tile,
// or everyone waited with work left (a wait on a phase that cannot come). Host only.
inline bool simulate_ring(int stages, int consumers, int slices, unsigned seed, int (*full_parity)(int, int),
                          int (*empty_parity)(int, int)) {
  std::vector<MbarrierModel> full(stages, MbarrierModel(1)), empty(stages, MbarrierModel(consumers));
  std::vector<int> holds(stages, -1);   // which tile each stage holds
  std::vector<int> readers(stages, 0);  // consumers still to read it
  int produced = 0;
  std::vector<int> consumed(consumers, 0);
  std::mt19937 rng(seed);
  for (int step = 0; step < 100000; ++step) {
    bool done = produced == slices;
    for (int c : consumed) done = done && c == slices;
    if (done) return true;
    std::vector<int> ready;  // actor 0 is the producer, 1.. the consumers
    if (produced < slices && empty[ring_slot(produced, stages).stage].try_wait_parity(empty_parity(produced, stages)))
      ready.push_back(0);
    for (int c = 0; c < consumers; ++c) {
      const int k = consumed[c];
      if (k < slices && full[ring_slot(k, stages).stage].try_wait_parity(full_parity(k, stages)))
        ready.push_back(1 + c);
    }
    if (ready.empty()) return false;
    const int actor = ready[rng() % ready.size()];
    if (actor == 0) {
      const int stage = ring_slot(produced, stages).stage;
      if (readers[stage] != 0) return false;
      holds[stage] = produced++;
      readers[stage] = consumers;
      full[stage].arrive();  // the TMA's bytes complete the phase
    } else {
      const int k = consumed[actor - 1]++;
      const int stage = ring_slot(k, stages).stage;
      if (holds[stage] != k) return false;
      --readers[stage];
      empty[stage].arrive();
    }
  }
  return false;
}


// Chapter 08's ring across a cluster: `size` blocks, each with one producer and `consumers` consumers, run the
// protocol of tc/layouts/cluster.hpp on model rings of `stages`, in an order drawn from `seed`. Producer b, after
// its own "empty" barrier of K tile k's stage passes (ring_empty_wait_parity), writes its part of tile k into that
// stage of every block (the multicast); each part that lands is one arrival on that block's "full" barrier, which
// completes after all `size` parts. A consumer waits on its block's "full" (ring_full_parity), reads, and arrives on
// the "empty" barrier of every block when `release_to_peers`, else of its own block only. "empty" expects
// `empty_arrivals` (tc::cluster_empty_arrivals(consumers, size) for the kernel's protocol). Returns true when every
// consumer read all `slices` tiles, each whole from the stage that held it; false if a part was written into a stage
// that a consumer of that block had not released, a consumer found a stage holding another tile or part of one, or
// everyone waited with work left. size 1 is chapter 07's ring. Host only.
inline bool simulate_cluster_ring(int stages, int consumers, int size, int slices, unsigned seed, int empty_arrivals,
                                  bool release_to_peers) {
  struct Block {
    std::vector<MbarrierModel> full, empty;
    std::vector<int> holds, parts, readers;  // per stage: the tile, its parts landed, consumers still to read it
    int produced = 0;
    std::vector<int> consumed;
  };
  std::vector<Block> blocks(size);
  for (Block& b : blocks) {
    b.full.assign(stages, MbarrierModel(size));
    b.empty.assign(stages, MbarrierModel(empty_arrivals));
    b.holds.assign(stages, -1);
    b.parts.assign(stages, 0);
    b.readers.assign(stages, 0);
    b.consumed.assign(consumers, 0);
  }
  std::mt19937 rng(seed);
  for (int step = 0; step < 1000000; ++step) {
    std::vector<std::pair<int, int>> ready;  // (block, -1 for its producer or the consumer index)
    bool done = true;
    for (int b = 0; b < size; ++b) {
      const Block& x = blocks[b];
      done = done && x.produced == slices;
      if (x.produced < slices &&
          x.empty[ring_slot(x.produced, stages).stage].try_wait_parity(ring_empty_wait_parity(x.produced, stages)))
        ready.push_back({b, -1});
      for (int c = 0; c < consumers; ++c) {
        const int k = x.consumed[c];
        done = done && k == slices;
        if (k < slices && x.full[ring_slot(k, stages).stage].try_wait_parity(ring_full_parity(k, stages)))
          ready.push_back({b, c});
      }
    }
    if (done) return true;
    if (ready.empty()) return false;
    const auto [b, actor] = ready[rng() % ready.size()];
    if (actor < 0) {  // producer b multicasts its part of its next tile
      const int k = blocks[b].produced++;
      const int stage = ring_slot(k, stages).stage;
      for (Block& to : blocks) {
        if (to.holds[stage] != k) {  // the first part of tile k to land here: the stage must be free
          if (to.readers[stage] != 0 || (to.holds[stage] >= 0 && to.parts[stage] != size)) return false;
          to.holds[stage] = k;
          to.parts[stage] = 0;
          to.readers[stage] = consumers;
        }
        ++to.parts[stage];
        to.full[stage].arrive();
      }
    } else {
      Block& x = blocks[b];
      const int k = x.consumed[actor]++;
      const int stage = ring_slot(k, stages).stage;
      if (x.holds[stage] != k || x.parts[stage] != size) return false;
      --x.readers[stage];
      for (int to = 0; to < size; ++to)
        if (release_to_peers || to == b) blocks[to].empty[stage].arrive();
    }
  }
  return false;
}

}  // namespace tc
