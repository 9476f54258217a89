// Waves: how a GEMM's tiles fall on a GPU's SMs, and how many SMs the last wave leaves idle (chapter 10).
//
// A persistent grid of `workers` (blocks, or clusters of blocks) takes `units` equal pieces of work (tiles) in turns:
// worker w takes w, w + workers, ... So the work runs in ceil(units / workers) waves, and the last one has only
// units - (waves - 1) * workers pieces: the rest of the workers sit idle while it runs. With one piece a wave of
// time, the GPU is busy units / (waves * workers) of the time: wave quantization. 128 tiles on 128 workers keep
// every one busy; 129 take twice as long.
// Host and device, constexpr, pure; a unit of work of another size (a short tile, a K chunk) is the caller's to count.
// Source: the arithmetic of a strided walk (chapter 08's persistent scheduler, tc/persistent_grid.cuh); the term is
// from NVIDIA's "Matrix Multiplication Background User's Guide", "Wave Quantization".
#pragma once

#include <cuda_runtime_api.h>  // __host__ __device__

namespace tc {

struct Waves {
  int units = 0;           // pieces of work
  int workers = 1;         // how many run at once
  int waves = 0;           // ceil(units / workers)
  int last_wave_busy = 0;  // pieces in the last wave (workers where units is a multiple of workers)
  int last_wave_idle = 0;  // workers idle in the last wave: workers - last_wave_busy (0 where there is no work)
  // units / (waves * workers): the share of the workers' time spent working; 1 with no work at all.
  __host__ __device__ constexpr double efficiency() const {
    return waves == 0 ? 1.0 : double(units) / (double(waves) * workers);
  }
};

// The waves of `units` pieces of work on `workers` workers. Preconditions: units >= 0, workers >= 1.
__host__ __device__ constexpr Waves waves_of(int units, int workers) {
  const int waves = (units + workers - 1) / workers;
  const int busy = units == 0 ? 0 : units - (waves - 1) * workers;
  return {units, workers, waves, busy, units == 0 ? 0 : workers - busy};
}

}  // namespace tc
