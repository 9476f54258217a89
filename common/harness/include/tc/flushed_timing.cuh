// Timing with a cold L2, and the DRAM ceiling it is measured against (chapter 10).
//
// Why: at the shapes an LLM runs, a weight matrix of 32 or 48 MiB stays in an H200's 60 MiB L2 from one repeat to the
// next, and a kernel timed warm reads it at L2 speed, which no model step sees (the weights come from DRAM every
// token). So every launch, a kernel's and its yardsticks' alike, is timed right after an L2 flush.
// How the flush works: l2_flush_read_kernel reads a buffer of kL2FlushFactor times the L2 (cudaDeviceProp::
// l2CacheSize) and writes nothing, so the lines it leaves behind are clean: the timed kernel never pays for a dirty
// line's write-back, which is what a write flush (cudaMemset of a large buffer) leaves it to do.
// Why the timing brackets only the kernel: the flush is enqueued just before each timed launch, on the same stream,
// and the host never waits in between, so while the flush runs the host has already queued the launch and its events.
// The queue is never empty, and an event pair around one 10-50 us launch times the GPU's work, not the host's launch
// latency (a few microseconds: as much as a small kernel's whole time).
// The DRAM ceiling: measure_copy_gbps times cudaMemcpyAsync device to device and counts bytes read plus written, the
// figure operand traffic is compared with.
// Preconditions: a CUDA GPU. Errors: std::invalid_argument for bad counts; tc::CudaError from CUDA (out of memory).
// Source: CUDA C++ Programming Guide, "Device Memory L2 Access Management" (the L2 and its size) and "Events";
// CUDA Runtime API, "cudaMemcpyAsync".
#pragma once

#include "tc/check.hpp"
#include "tc/device.hpp"  // tc::current_device_sms
#include "tc/device_buffer.hpp"
#include "tc/timer.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tc {

// The flush reads this many times the L2: a read of twice the cache evicts what a least-recently-used policy holds,
// and leaves it holding the flush buffer's own (clean) lines.
inline constexpr int kL2FlushFactor = 2;

// Bytes the flush reads for an L2 of l2_bytes: kL2FlushFactor times it, rounded up to whole 16-byte vectors (the
// kernel's loads), and at least one vector. Host, pure.
inline std::size_t l2_flush_bytes(std::size_t l2_bytes) {
  const std::size_t bytes = l2_bytes * kL2FlushFactor;
  return bytes < 16 ? 16 : (bytes + 15) / 16 * 16;
}

// Reads `count` 16-byte vectors with plain (L2-allocating) loads and folds them into one word per thread, which it
// stores only if it equals an impossible marker: the loads cannot be optimized away, and no line is left dirty.
// Launch: any grid-stride configuration (L2Flush uses 4 blocks per SM of 512 threads). A template (its parameter
// unused) so that every translation unit may include this header: a plain __global__ function defined here would be
// defined once per unit, which the linker rejects. Source: PTX ISA, "ld".
// [doc:flush_kernel]
template <int kUnused = 0>
__global__ void l2_flush_read_kernel(const uint4* data, std::size_t count, unsigned* sink) {
  unsigned fold = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const uint4 v = data[i];
    fold ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  // The buffer holds zeros (L2Flush clears it), so fold is 0 and this store never runs; the compiler cannot know.
  if (fold == 0x9e3779b9u) *sink = fold;
}
// [/doc:flush_kernel]

// A buffer of l2_flush_bytes(this GPU's L2), and the kernel that reads it.
class L2Flush {
 public:
  L2Flush() {
    int device = 0, l2 = 0;
    TC_CHECK(cudaGetDevice(&device));
    TC_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    l2_bytes_ = std::size_t(l2);
    blocks_ = 4 * current_device_sms();  // enough loads in flight to read at DRAM speed
    buffer_ = DeviceBuffer<uint4>(l2_flush_bytes(l2_bytes_) / 16);
    sink_ = DeviceBuffer<unsigned>(1);
    TC_CHECK(cudaMemset(buffer_.data(), 0, buffer_.size() * sizeof(uint4)));
    TC_CHECK(cudaDeviceSynchronize());
  }
  std::size_t l2_bytes() const { return l2_bytes_; }
  std::size_t bytes() const { return buffer_.size() * sizeof(uint4); }
  // Enqueues the read of the whole buffer on `stream`.
  void enqueue(cudaStream_t stream) const {
    l2_flush_read_kernel<<<blocks_, 512, 0, stream>>>(buffer_.data(), buffer_.size(), sink_.data());
    TC_CHECK(cudaGetLastError());
  }

 private:
  std::size_t l2_bytes_ = 0;
  int blocks_ = 0;
  DeviceBuffer<uint4> buffer_;
  mutable DeviceBuffer<unsigned> sink_;  // written by no launch (see the kernel), but a kernel argument
};

// Times fn with the L2 flushed before every launch: tc::rest_gpu(rest_ms), `warmup` untimed (flush, fn) pairs, then
// `repeats` of (flush, event, fn, event), all enqueued on the default stream before the one synchronisation at the
// end. Each sample is one launch's own event-to-event time; median_ms returns their median (tc::summarize). fn must
// enqueue its work on the default stream, as the harness's launches and cuBLAS's (on a handle with no stream set) do.
// The same interface as tc::Timing, so tc::time_lt_candidates takes either.
struct FlushedTiming {
  const L2Flush* flush = nullptr;
  int warmup = 5, repeats = 30, rest_ms = 0;

  template <typename Fn>
  TimingStats stats(Fn&& fn) const {
    if (flush == nullptr || warmup < 0 || repeats < 1)
      throw std::invalid_argument("FlushedTiming: need a flush, warmup >= 0 and repeats >= 1, got warmup " +
                                  std::to_string(warmup) + " and repeats " + std::to_string(repeats));
    rest_gpu(rest_ms);
    // [doc:flushed_loop]
    for (int i = 0; i < warmup; ++i) {
      flush->enqueue(nullptr);
      fn();
    }
    std::vector<Event> start(repeats), stop(repeats);
    for (int i = 0; i < repeats; ++i) {
      flush->enqueue(nullptr);
      TC_CHECK(cudaEventRecord(start[i].get(), nullptr));
      fn();
      TC_CHECK(cudaEventRecord(stop[i].get(), nullptr));
    }
    TC_CHECK(cudaEventSynchronize(stop.back().get()));  // the host's one wait, after everything is queued
    // [/doc:flushed_loop]
    std::vector<float> samples(repeats);
    for (int i = 0; i < repeats; ++i) TC_CHECK(cudaEventElapsedTime(&samples[i], start[i].get(), stop[i].get()));
    return summarize(std::move(samples));
  }
  template <typename Fn>
  double median_ms(Fn&& fn) const {
    return stats(fn).median_ms;
  }
};

// The DRAM ceiling: cudaMemcpyAsync of `bytes` from one device buffer to another, `repeats` times after one untimed
// copy, each between its own events; returns the median's (bytes read + bytes written) / time in GB/s (10^9 bytes a
// second). Allocates 2 * bytes of device memory while it runs. Errors: std::invalid_argument for bytes == 0 or
// repeats < 1; tc::CudaError (out of memory among them).
inline double measure_copy_gbps(std::size_t bytes, int repeats) {
  if (bytes == 0 || repeats < 1)
    throw std::invalid_argument("measure_copy_gbps: need bytes > 0 and repeats >= 1");
  DeviceBuffer<unsigned char> src(bytes), dst(bytes);
  TC_CHECK(cudaMemset(src.data(), 1, bytes));
  const TimingStats t = benchmark(
      [&] { TC_CHECK(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, nullptr)); }, 1,
      repeats);
  return 2.0 * double(bytes) / (t.median_ms * 1e-3) / 1e9;
}

}  // namespace tc
