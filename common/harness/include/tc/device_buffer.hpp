// RAII ownership of a cudaMalloc'd array of T.
//
// DeviceBuffer<T> buf(n) allocates n elements (n * sizeof(T) bytes; n == 0 allocates nothing and data() is nullptr).
// It is move-only; the destructor frees. cudaMalloc returns memory aligned to at least 256 bytes (CUDA C++
// Programming Guide, "Device Memory Accesses"), which satisfies WMMA's 256-bit pointer alignment for the base address.
// Errors: allocation and copies throw tc::CudaError (out of memory, no GPU, size mismatch is std::invalid_argument).
#pragma once

#include "tc/check.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

namespace tc {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ > 0) TC_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), bytes()));
  }
  // Allocates and uploads host.size() elements.
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }

  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  ~DeviceBuffer() { release(); }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  // Copies host -> device; host.size() must equal size().
  void upload(const std::vector<T>& host) {
    require_size(host.size());
    if (count_ > 0) TC_CHECK(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice));
  }
  // Copies device -> host (synchronous: waits for prior work on the legacy default stream).
  std::vector<T> download() const {
    std::vector<T> host(count_);
    if (count_ > 0) TC_CHECK(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost));
    return host;
  }
  // Fills the buffer with a value no correct kernel output takes, so that an output element a kernel forgot to write
  // fails comparison instead of passing as a stale or zero value. Floating types: every byte 0xFF, a NaN for half,
  // bfloat16, float and double. Integer types: every byte 0x80, which is INT32_MIN + 0x00808080 = -2139062144 for
  // int32 (an s8 GEMM reaches that only for k > 130000) and -128 for int8.
  void poison() {
    const int byte = std::is_integral_v<T> ? 0x80 : 0xFF;
    if (count_ > 0) TC_CHECK(cudaMemset(data_, byte, bytes()));
  }

 private:
  void require_size(std::size_t n) const {
    if (n != count_) {
      throw std::invalid_argument("DeviceBuffer: host vector has " + std::to_string(n) + " elements, buffer has " +
                                  std::to_string(count_));
    }
  }
  void release() noexcept {
    if (data_ != nullptr) cudaFree(data_);  // a destructor must not throw; a failed free leaks at worst
    data_ = nullptr;
    count_ = 0;
  }

  T* data_ = nullptr;
  std::size_t count_ = 0;
};

// Scratch memory from the stream-ordered allocator: cudaMallocAsync on construction, cudaFreeAsync on destruction,
// both on `stream`. Use it for temporaries inside a launcher: allocation and release are ordered with the kernels on
// the stream and, unlike cudaMalloc/cudaFree, neither synchronizes the device, so a launcher that needs scratch stays
// asynchronous and can be timed like any kernel. The device's default memory pool keeps freed memory for reuse until
// the next synchronization, so repeated launches do not go back to the driver.
// Alignment: callers that need one check the pointer (the chapter 02 launchers do). Units: count in elements.
// Errors: tc::CudaError (out of memory among them) from the allocation.
// Source: CUDA C++ Programming Guide, "Stream Ordered Memory Allocator".
template <typename T>
class StreamOrderedBuffer {
 public:
  StreamOrderedBuffer(std::size_t count, cudaStream_t stream) : count_(count), stream_(stream) {
    if (count_ > 0) TC_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&data_), count_ * sizeof(T), stream_));
  }
  StreamOrderedBuffer(const StreamOrderedBuffer&) = delete;
  StreamOrderedBuffer& operator=(const StreamOrderedBuffer&) = delete;
  ~StreamOrderedBuffer() {
    if (data_ != nullptr) cudaFreeAsync(data_, stream_);  // a destructor must not throw
  }
  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return count_; }

 private:
  std::size_t count_ = 0;
  cudaStream_t stream_ = nullptr;
  T* data_ = nullptr;
};

}  // namespace tc
