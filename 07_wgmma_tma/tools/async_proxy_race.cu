// 07_async_proxy_race: does compute-sanitizer see a race between a TMA write and ordinary shared-memory reads?
//
// One kernel with a deliberate bug: thread 0 issues a TMA load into shared memory, and every thread reads that memory
// *before* waiting on the mbarrier that says the load has landed (it waits afterwards, so the kernel ends cleanly).
// The reads race with the TMA unit's writes. Run it under racecheck and synccheck (docs/07, "Sanitizers"): what they
// report, or do not, is the evidence of whether they model the async proxy. Its output is meaningless by design.
// Usage: 07_async_proxy_race (no flags). Exit codes: README.md, "Exit codes" (77 without an SM 9.0 GPU).
#include "tc/device.hpp"
#include "tc/device_buffer.hpp"
#include "tc/main.hpp"
#include "tc/mbarrier.cuh"
#include "tc/tma.hpp"

#include <cstdint>
#include <cstdio>
#include <vector>

// The bug is the read before the wait. Preconditions: grid 1, block 128; sm_90. Source: PTX ISA,
// "cp.async.bulk.tensor", "mbarrier.try_wait".
__global__ void async_proxy_race_kernel(const __grid_constant__ CUtensorMap map, std::uint16_t* out) {
  __shared__ __align__(1024) std::uint16_t box[64 * 16];
  __shared__ std::uint64_t full;
  if (threadIdx.x == 0) {
    tc::mbarrier_init(&full, 1);
    tc::fence_mbarrier_init_release_cluster();  // the barrier exists before the TMA unit completes bytes on it
    tc::mbarrier_arrive_expect_tx(&full, sizeof box);
    tc::cp_async_bulk_tensor_2d_global_to_shared(box, &map, 0, 0, &full);
  }
  __syncthreads();  // the barrier is initialised before anyone waits on it
  out[threadIdx.x] = box[threadIdx.x * 8];  // THE RACE: the TMA may still be writing these bytes
  tc::mbarrier_wait_parity(&full, 0);
}

int main() {
  return tc::run_main([] {
    tc::require_exact_sm(90, "07_async_proxy_race (TMA, sm_90a)");  // on another GPU: exit 77
    tc::require_sm(90, "07_async_proxy_race (TMA, sm_90a)", true);  // no GPU: exit 77
    const std::vector<std::uint16_t> matrix(64 * 16, 1);
    const tc::DeviceBuffer<std::uint16_t> d_matrix(matrix);
    tc::DeviceBuffer<std::uint16_t> out(128);
    const CUtensorMap map =
        tc::make_tma_2d({d_matrix.data(), 2, 64, 16, 128, 64, 16, tc::Swizzle::B128}, CU_TENSOR_MAP_DATA_TYPE_UINT16);
    async_proxy_race_kernel<<<1, 128>>>(map, out.data());
    tc::check_launch();
    TC_CHECK(cudaDeviceSynchronize());
    std::printf("07_async_proxy_race: ran the racy kernel (reads a TMA destination before its mbarrier wait)\n");
    return tc::kExitOk;
  });
}
