// Chapter 08 -- the epilogue probe: step 4's TMA-store epilogue, run on registers that name their own coordinates.
//
// One warpgroup fills its 128 accumulator registers with what tc::wgmma_m64nNk16_d_coord says each holds (the row,
// then in a second run the column, of its element: integers below 256, exact in bf16 and fp32) and calls
// tc::TmaStoreEpilogue<Out>::store, the code step 4 runs: the st.shared or stmatrix.trans staging through
// tc::epilogue_offset, the proxy fence, the named barriers and the TMA stores. C(row, col) must then read row, then
// col, everywhere: the hardware's stmatrix, swizzle and TMA store against the layout functions, end to end.
#pragma once

#include <cuda_bf16.h>

#include <vector>

#include "tc/check.hpp"
#include "tc/device_buffer.hpp"
#include "tc/tma_store_epilogue.cuh"
#include "tc/wgmma_slice.cuh"  // tc::aligned_smem

// [doc:probe]
// 128 threads (one consumer warpgroup); C column-major 64 x 256 (ldc 64) through out.map_c; which 0: rows, 1: columns.
template <typename Out>
__global__ void __launch_bounds__(128)
    epilogue_probe_kernel(const __grid_constant__ typename tc::TmaStoreEpilogue<Out>::Params out, int which) {
  extern __shared__ unsigned char smem_raw[];
  unsigned char* staging = tc::aligned_smem(smem_raw);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  float acc[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) {
    const tc::Coord p = tc::wgmma_m64nNk16_d_coord(warp, lane, i);
    acc[i] = float(which == 0 ? p.row : p.col);
  }
  tc::TmaStoreEpilogue<Out>::template store<256>(out, acc, 64, 256, 0, 0, 1.0f, 0.0f, 0, staging);
  tc::TmaStoreEpilogue<Out>::finish(out, 0);
}
// [/doc:probe]

struct EpilogueProbe {
  int checked = 0;
  int differ = 0;  // elements of C that do not read their own row (then column)
};

// Runs the probe for Out on the GPU. Errors: tc::CudaError.
template <typename Out>
EpilogueProbe probe_epilogue() {
  constexpr int kSmem = tc::TmaStoreEpilogue<Out>::kBytesPerConsumer + 1024;  // and the slack tc::aligned_smem takes
  tc::DeviceBuffer<Out> c(64 * 256);
  const typename tc::TmaStoreEpilogue<Out>::Params out{tc::output_map(c.data(), 64, 256, 64), c.data(), 64};
  EpilogueProbe r;
  for (int which = 0; which < 2; ++which) {
    c.poison();
    epilogue_probe_kernel<Out><<<1, 128, kSmem>>>(out, which);
    tc::check_launch();
    TC_CHECK(cudaDeviceSynchronize());
    const std::vector<Out> got = c.download();
    for (int col = 0; col < 256; ++col)
      for (int row = 0; row < 64; ++row) {
        ++r.checked;
        r.differ += static_cast<float>(got[row + 64 * col]) != float(which == 0 ? row : col);
      }
  }
  return r;
}
