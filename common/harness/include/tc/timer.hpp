// Timing GPU work with CUDA events: warm-up, repeats, median/min/max, TFLOP/s.
//
// benchmark(launch, warmup, repeats, stream) calls launch() `warmup` times untimed (module load, cache and clock
// warm-up stay out of the numbers), then `repeats` times, each bracketed by events recorded on `stream`, and
// synchronizes once at the end. Each sample is one launch's event-to-event time in milliseconds; the median is the
// statistic the tutorial reports (robust to the odd slow launch), min and max show the spread.
// rest_gpu(idle_ms), below, lets the GPU idle before a timing that is compared with another.
// Preconditions: warmup >= 0, repeats >= 1, and launch() enqueues its work on `stream`.
// Errors: std::invalid_argument for bad counts; tc::CudaError from the event calls.
// Source: CUDA C++ Programming Guide, "Events" (cudaEventElapsedTime has a resolution of about half a microsecond).
#pragma once

#include "tc/check.hpp"

#include <cuda_runtime_api.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace tc {

struct TimingStats {
  double median_ms = 0.0;
  double min_ms = 0.0;
  double max_ms = 0.0;
  int repeats = 0;
};

// Median (mean of the middle two for an even count), min and max of the samples. Throws on an empty list.
TimingStats summarize(std::vector<float> samples_ms);

// 2 * m * n * k: one multiply and one add per term of every dot product (the convention cuBLAS and papers use).
inline double gemm_flops(long m, long n, long k) { return 2.0 * static_cast<double>(m) * n * k; }
// FLOP (or integer OPs) over milliseconds, in units of 10^12 per second.
inline double tflops(double flops, double ms) { return ms > 0.0 ? flops / (ms * 1e-3) / 1e12 : 0.0; }

class Event {
 public:
  Event() { TC_CHECK(cudaEventCreate(&event_)); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() { cudaEventDestroy(event_); }  // a destructor must not throw
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_{};
};

// Waits for all of the current device's queued work, then sleeps idle_ms milliseconds (on the host; the GPU idles).
// Call it before a timing that is compared with another. A GPU at its power limit lowers its clock after some tens of
// milliseconds of heavy work and raises it again when idle, so two kernels timed back to back are compared at
// different clocks, to the disadvantage of whichever runs second; starting each timing from the same rested GPU
// compares them at the same clock (docs/06, "The ceiling", has the H200's case).
// Errors: std::invalid_argument for idle_ms < 0 (before any CUDA call); tc::CudaError from the synchronisation.
// Source: CUDA Runtime API, "Device Management" (cudaDeviceSynchronize).
inline void rest_gpu(int idle_ms) {
  if (idle_ms < 0) throw std::invalid_argument("rest_gpu: idle_ms must be >= 0, got " + std::to_string(idle_ms));
  TC_CHECK(cudaDeviceSynchronize());
  std::this_thread::sleep_for(std::chrono::milliseconds(idle_ms));
}

template <typename Launch>
TimingStats benchmark(Launch&& launch, int warmup, int repeats, cudaStream_t stream = nullptr) {
  if (warmup < 0 || repeats < 1) {
    throw std::invalid_argument("benchmark: need warmup >= 0 and repeats >= 1, got " + std::to_string(warmup) +
                                " and " + std::to_string(repeats));
  }
  for (int i = 0; i < warmup; ++i) launch();
  std::vector<Event> events(static_cast<std::size_t>(repeats) + 1);
  // Events between consecutive launches: launch i is timed from events[i] to events[i + 1], and the host never waits
  // in between, so host-side launch overhead overlaps the previous launch instead of adding gaps.
  TC_CHECK(cudaEventRecord(events[0].get(), stream));
  for (int i = 0; i < repeats; ++i) {
    launch();
    TC_CHECK(cudaEventRecord(events[i + 1].get(), stream));
  }
  TC_CHECK(cudaEventSynchronize(events.back().get()));
  std::vector<float> samples(repeats);
  for (int i = 0; i < repeats; ++i) TC_CHECK(cudaEventElapsedTime(&samples[i], events[i].get(), events[i + 1].get()));
  return summarize(std::move(samples));
}

}  // namespace tc
