// tc::trace_point: where a tool may time a kernel's phases, and nothing else may.
//
// A timeline of a warp-specialized kernel (which warpgroup waits, issues, computes, and when) is what shows whether
// its overlap works. A kernel marks the moments a timeline needs:
//   tc::trace_point(kIssued);
// In every binary a learner runs, trace_point compiles to nothing. In a tool compiled with TC_TRACE_HOOK, thread 0
// of each warpgroup of one chosen block writes (the SM's clock64, its warpgroup, the event) to a buffer the tool set
// up (tc::detail::TraceSink, through cudaMemcpyToSymbol on tc::detail::g_trace_sink), so that the tool can draw
// the warpgroups' phases side by side. clock64 rather than %globaltimer: the phases last a fraction of a
// microsecond, finer than the global timer ticks on some GPUs, and every warpgroup of a block reads the same SM's
// counter. Preconditions: device code. Errors: none; events past the buffer's capacity are counted, not written;
// with no sink set (capacity 0) nothing is touched.
// Source: PTX ISA, "Special Registers: %clock64"; CUDA C++ Programming Guide, "atomicAdd".
#pragma once

#include <cstdint>

namespace tc {

#if defined(TC_TRACE_HOOK)
namespace detail {
struct TraceSink {
  std::uint64_t* records = nullptr;  // two words a record: the clock, then (warpgroup << 16) | event
  int* count = nullptr;              // records attempted (may pass capacity)
  int capacity = 0;
  int block = 0;  // the traced block: blockIdx.x == block, blockIdx.y == blockIdx.z == 0
};
namespace {
__device__ TraceSink g_trace_sink;  // internal linkage: each tool's translation unit has its own
}  // namespace
}  // namespace detail
#endif

// Nothing, in every binary but a trace tool's; there, a record of `event` by this warpgroup, now.
__device__ __forceinline__ void trace_point(int event) {
#if defined(TC_TRACE_HOOK)
  const detail::TraceSink& sink = detail::g_trace_sink;
  // A sink with no buffer (before the tool sets one, between its traced launches) records nothing: count is null.
  if (sink.capacity == 0 || threadIdx.x % 128 != 0 || int(blockIdx.x) != sink.block || blockIdx.y != 0 ||
      blockIdx.z != 0)
    return;
  const long long now = clock64();
  const int i = atomicAdd(sink.count, 1);
  if (i < sink.capacity) {
    sink.records[2 * i] = std::uint64_t(now);
    sink.records[2 * i + 1] = (std::uint64_t(threadIdx.x / 128) << 16) | std::uint64_t(event);
  }
#else
  (void)event;
#endif
}

}  // namespace tc
