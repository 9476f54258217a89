// GPU probes of the wgmma forms and TMA ranks that attention needs, against the layout functions that describe them
// (tc/layouts/wgmma.hpp) and the hardware (SM 9.0 only; built for sm_90a):
//   - the RS form: A from registers, each element placed as tc::wgmma_m64nNk16_a_coord says;
//   - an MN-major B (imm-trans-b 1), in both forms: B placed as tc::wgmma_operand_address says under
//     tc::mn_major_tile_descriptor, across two panels (LBO) and two 8-k groups (SBO);
//   - TMA of rank 3 and 4: a box of a [batch, seqlen, heads, head_dim] tensor read in place.
// Each probe reads its result back through coordinates the host decodes, and each runs once more with a bug planted on
// purpose (a wrong A map, the two offsets swapped, the wrong head), which must be seen. Host: the probes' premises
// (every value exact in f16 and naming one place; the TMA map within the driver's rules).
#include "tc/device_buffer.hpp"
#include "tc/layouts/wgmma.hpp"
#include "tc/mbarrier.cuh"
#include "tc/shared_address.cuh"
#include "tc/tma.hpp"
#include "tc/wgmma.cuh"
#include "tc_test/catch.hpp"

#include <cuda_fp16.h>

#include <cstdint>
#include <set>
#include <vector>

namespace {

using tc::Swizzle;
using tc::WgmmaMajor;

// Two f16 values packed as one 32-bit register: `lo` in bits 0..15 (PTX ISA, "Packed Data Types").
__device__ std::uint32_t pack_half2(float lo, float hi) {
  const __half2 h = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<const std::uint32_t*>(&h);
}

// The A operand (64 x 16) in registers, for the RS form: element (row, k) = value(row, k). With `wrong_map`, each
// register's two halves are swapped, a misreading of the packing that the probe must catch.
template <typename Value>
__device__ void a_registers(std::uint32_t (&a)[4], Value value, bool wrong_map) {
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  for (int j = 0; j < 4; ++j) {
    const tc::Coord lo = tc::wgmma_m64nNk16_a_coord(warp, lane, 2 * j);
    const tc::Coord hi = tc::wgmma_m64nNk16_a_coord(warp, lane, 2 * j + 1);
    const float v_lo = value(lo.row, lo.col), v_hi = value(hi.row, hi.col);
    a[j] = wrong_map ? pack_half2(v_hi, v_lo) : pack_half2(v_lo, v_hi);
  }
}

// out[row * N + col] = D(row, col), each register placed by tc::wgmma_m64nNk16_d_coord (chapter 07's probe proves it).
template <int N>
__device__ void store_d(const float (&d)[N / 2], float* out) {
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  for (int i = 0; i < N / 2; ++i) {
    const tc::Coord c = tc::wgmma_m64nNk16_d_coord(warp, lane, i);
    out[c.row * N + c.col] = d[i];
  }
}

// [doc:rs_probe]
// The RS form: D (64 x 16) = A (registers, A(row, k) = 16 row + k) * B (16 x 16 identity, K-major in shared memory),
// so D(row, col) = 16 row + col, exact in f16 and f32. One warpgroup. Preconditions: grid 1, block 128; sm_90a.
__global__ void __launch_bounds__(128) rs_probe_kernel(float* out, bool wrong_map) {
  __shared__ __align__(1024) __half b[16 * 64];  // 16 rows (n) of 128 bytes (k), of which the wgmma reads k 0..15
  const tc::WgmmaDescriptorFields fb = tc::k_major_tile_descriptor(Swizzle::B128, tc::shared_address(b), 128);
  for (int e = threadIdx.x; e < 16 * 64; e += 128) b[e] = __float2half(0.0f);
  __syncthreads();  // the zeros, before the ones among them
  if (threadIdx.x < 16) {
    const int n = int(threadIdx.x);
    b[(tc::wgmma_operand_address(fb, WgmmaMajor::K, 2, n, n) - fb.start_address) / 2] = __float2half(1.0f);
  }
  std::uint32_t a[4];
  a_registers(a, [](int row, int k) { return float(16 * row + k); }, wrong_map);
  tc::fence_proxy_async_shared_cta();  // this thread's stores, before the async proxy (wgmma) reads them
  __syncthreads();                     // every thread's stores, before the warpgroup's wgmma
  float d[8] = {};
  tc::wgmma_fence();  // A's registers were just written
  tc::wgmma_m64nNk16_rs<16, __half>(d, a, tc::encode_wgmma_descriptor(fb), false);
  tc::wgmma_commit_group();
  tc::wgmma_wait_group<0>();
  store_d<16>(d, out);
}
// [/doc:rs_probe]

// [doc:mn_major_probe]
// An MN-major B: D (64 x 128) = A (64 x 16, A(row, k) = 1 where k = row % 16, else 0) * B (16 x 128, B(k, n) =
// 128 k + n, exact in f16), so D(row, n) = 128 (row % 16) + n. B lies MN-major as TMA would write a [k][n] tile with
// n contiguous in two panels of 64 columns: 16 rows (k) of 128 bytes a panel, panels 2048 bytes apart (LBO), groups
// of 8 k 1024 bytes apart (SBO); `swap_offsets` hands the wgmma a descriptor with the two exchanged. A comes from
// shared memory (K-major) or, with RegistersA, from registers. Preconditions: grid 1, block 128; sm_90a.
template <bool RegistersA>
__global__ void __launch_bounds__(128) mn_major_probe_kernel(float* out, bool swap_offsets) {
  __shared__ __align__(1024) __half b[2 * 16 * 64];
  __shared__ __align__(1024) __half a_tile[64 * 64];  // K-major A for the SS form: 64 rows of 128 bytes
  const tc::WgmmaDescriptorFields fb = tc::mn_major_tile_descriptor(Swizzle::B128, tc::shared_address(b), 2048);
  for (int e = threadIdx.x; e < 16 * 128; e += 128) {
    const int k = e / 128, n = e % 128;
    b[(tc::wgmma_operand_address(fb, WgmmaMajor::MN, 2, n, k) - fb.start_address) / 2] = __float2half(128.0f * k + n);
  }
  const tc::WgmmaDescriptorFields fa = tc::k_major_tile_descriptor(Swizzle::B128, tc::shared_address(a_tile), 128);
  for (int e = threadIdx.x; e < 64 * 16; e += 128) {
    const int row = e / 16, k = e % 16;
    a_tile[(tc::wgmma_operand_address(fa, WgmmaMajor::K, 2, row, k) - fa.start_address) / 2] =
        __float2half(k == row % 16 ? 1.0f : 0.0f);
  }
  tc::WgmmaDescriptorFields given = fb;
  if (swap_offsets) {
    given.leading_byte_offset = fb.stride_byte_offset;
    given.stride_byte_offset = fb.leading_byte_offset;
  }
  std::uint32_t a[4];
  a_registers(a, [](int row, int k) { return k == row % 16 ? 1.0f : 0.0f; }, false);
  tc::fence_proxy_async_shared_cta();
  __syncthreads();
  float d[64] = {};
  tc::wgmma_fence();
  if constexpr (RegistersA) {
    tc::wgmma_m64nNk16_rs<128, __half, WgmmaMajor::MN>(d, a, tc::encode_wgmma_descriptor(given), false);
  } else {
    tc::wgmma_m64nNk16<128, __half, WgmmaMajor::K, WgmmaMajor::MN>(d, tc::encode_wgmma_descriptor(fa),
                                                                     tc::encode_wgmma_descriptor(given), false);
  }
  tc::wgmma_commit_group();
  tc::wgmma_wait_group<0>();
  store_d<128>(d, out);
}
// [/doc:mn_major_probe]

// Elements of `got` (rows x cols, row-major) that differ from expected(row, col).
template <typename Expected>
int count_differences(const std::vector<float>& got, int rows, int cols, Expected expected) {
  int differ = 0;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) differ += got[std::size_t(r) * cols + c] != expected(r, c);
  return differ;
}

int rs_probe(bool wrong_map) {
  tc::DeviceBuffer<float> out(64 * 16);
  out.poison();
  rs_probe_kernel<<<1, 128>>>(out.data(), wrong_map);
  tc::check_launch();
  return count_differences(out.download(), 64, 16, [](int r, int c) { return float(16 * r + c); });
}

template <bool RegistersA>
int mn_major_probe(bool swap_offsets) {
  tc::DeviceBuffer<float> out(64 * 128);
  out.poison();
  mn_major_probe_kernel<RegistersA><<<1, 128>>>(out.data(), swap_offsets);
  tc::check_launch();
  return count_differences(out.download(), 64, 128, [](int r, int n) { return float(128 * (r % 16) + n); });
}

// ---- TMA of rank 3 and 4 ---------------------------------------------------------------------------------------

// The probed tensor: [batch 2, seqlen 40, heads 3, head_dim 64] f16, head_dim contiguous, element (b, s, h, d) holding
// a value unique to it (exact in f16, below 2048, wrapping: the probe compares what each place holds).
constexpr int kBatch = 2, kSeq = 40, kHeads = 3, kDim = 64, kBoxKeys = 32;
__host__ __device__ constexpr float tensor_value(int b, int s, int h, int d) {
  return float((((b * kSeq + s) * kHeads + h) * kDim + d) % 2039);
}

// [doc:tma_rank_probe]
// Thread 0 loads one box of kBoxKeys keys x 64 head_dim of `map` (rank 3: [seqlen, heads, head_dim] of batch 0, at
// (0, first_key, head); rank 4: at (0, first_key, head, batch)) into a 1024-aligned buffer; then out[i] = its i-th
// element as it lies in shared memory (128B-swizzled). Preconditions: grid 1, block 32; sm_90.
template <int Rank>
__global__ void tma_rank_probe_kernel(const __grid_constant__ CUtensorMap map, int first_key, int head, int batch,
                                      __half* out) {
  __shared__ __align__(1024) __half box[kBoxKeys * kDim];
  __shared__ std::uint64_t full;
  if (threadIdx.x == 0) {
    tc::mbarrier_init(&full, 1);
    tc::fence_mbarrier_init_release_cluster();  // the barrier exists before the TMA unit completes bytes on it
    tc::mbarrier_arrive_expect_tx(&full, sizeof(box));
    if constexpr (Rank == 3) tc::cp_async_bulk_tensor_3d_global_to_shared(box, &map, 0, first_key, head, &full);
    if constexpr (Rank == 4) {
      tc::cp_async_bulk_tensor_4d_global_to_shared(box, &map, 0, first_key, head, batch, &full);
    }
  }
  __syncthreads();  // no thread waits on the barrier before thread 0 has initialised it
  tc::mbarrier_wait_parity(&full, 0);
  for (int i = threadIdx.x; i < kBoxKeys * kDim; i += blockDim.x) out[i] = box[i];
}
// [/doc:tma_rank_probe]

// Loads the box at (first_key, head, batch) through a map of `rank` over the tensor in place, and counts the shared
// elements that do not hold the tensor element the 128B swizzle puts there (zero past the last key). `probe_head` is
// the head the kernel asks for; the host expects `head` (a planted bug asks for another).
int tma_rank_probe(int rank, int first_key, int head, int batch, int probe_head) {
  std::vector<__half> tensor(std::size_t(kBatch) * kSeq * kHeads * kDim);
  for (int b = 0; b < kBatch; ++b)
    for (int s = 0; s < kSeq; ++s)
      for (int h = 0; h < kHeads; ++h)
        for (int d = 0; d < kDim; ++d)
          tensor[((std::size_t(b) * kSeq + s) * kHeads + h) * kDim + d] = __float2half(tensor_value(b, s, h, d));
  const tc::DeviceBuffer<__half> d_tensor(tensor);
  tc::TmaTensor t;
  t.base = d_tensor.data();
  t.element_bytes = 2;
  t.rank = rank;
  // Dimensions innermost first: head_dim, seqlen, heads[, batch]; a key's row is heads * head_dim elements on.
  t.dims = {kDim, kSeq, kHeads, kBatch};
  t.strides_bytes = {std::uint64_t(kHeads) * kDim * 2, std::uint64_t(kDim) * 2,
                     std::uint64_t(kSeq) * kHeads * kDim * 2};
  t.box = {kDim, kBoxKeys, 1, 1};
  t.swizzle = Swizzle::B128;
  const CUtensorMap map = tc::make_tma(t, CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
  tc::DeviceBuffer<__half> out(kBoxKeys * kDim);
  out.poison();
  if (rank == 3) tma_rank_probe_kernel<3><<<1, 32>>>(map, first_key, probe_head, batch, out.data());
  if (rank == 4) tma_rank_probe_kernel<4><<<1, 32>>>(map, first_key, probe_head, batch, out.data());
  tc::check_launch();
  const std::vector<__half> got = out.download();
  const int b = rank == 3 ? 0 : batch;
  int differ = 0;
  for (int i = 0; i < kBoxKeys * kDim; ++i) {
    const std::uint32_t logical = tc::swizzle_address(Swizzle::B128, std::uint32_t(2 * i));
    const int key = first_key + int(logical) / 128, d = int(logical) % 128 / 2;
    const float expected = key < kSeq ? tensor_value(b, key, head, d) : 0.0f;  // past the last key: zero fill
    differ += __half2float(got[std::size_t(i)]) != expected;
  }
  return differ;
}

}  // namespace

TEST_CASE("the probes' values are exact in f16 and tell every place apart, and their TMA map is valid",
          "[hopper][probe]") {
  // The probes decode places from values: each must survive f16 (integers up to 2048 do) and name one place.
  auto exact = [](float v) { return __half2float(__float2half(v)) == v; };
  std::set<float> rs, mn;
  bool all_exact = true;
  for (int row = 0; row < 64; ++row)
    for (int k = 0; k < 16; ++k) {
      all_exact &= exact(float(16 * row + k));
      rs.insert(float(16 * row + k));
    }
  for (int k = 0; k < 16; ++k)
    for (int n = 0; n < 128; ++n) {
      all_exact &= exact(128.0f * k + n);
      mn.insert(128.0f * k + n);
    }
  // The tensor's values repeat every 2039 elements; what the probe needs is that the wrong head's box differs from the
  // right one's at every element, and that every value is exact.
  int same_as_wrong_head = 0;
  for (int b = 0; b < kBatch; ++b)
    for (int h = 0; h < kHeads; ++h)
      for (int s = 0; s < kSeq; ++s)
        for (int d = 0; d < kDim; ++d) {
          all_exact &= exact(tensor_value(b, s, h, d));
          same_as_wrong_head += h > 0 && tensor_value(b, s, h, d) == tensor_value(b, s, h - 1, d);
        }
  CHECK(all_exact);
  CHECK(rs.size() == 64 * 16);
  CHECK(mn.size() == 16 * 128);
  CHECK(same_as_wrong_head == 0);
  // The map the TMA probe makes, on an aligned stand-in address: within every rule of cuTensorMapEncodeTiled.
  alignas(16) static unsigned char stand_in[16];
  tc::TmaTensor t;
  t.base = stand_in;
  t.rank = 4;
  t.dims = {kDim, kSeq, kHeads, kBatch};
  t.strides_bytes = {std::uint64_t(kHeads) * kDim * 2, std::uint64_t(kDim) * 2,
                     std::uint64_t(kSeq) * kHeads * kDim * 2};
  t.box = {kDim, kBoxKeys, 1, 1};
  CHECK_FALSE(tc::tma_problem(t));
}

TEST_CASE("wgmma RS form: A from registers lands where wgmma_m64nNk16_a_coord says", "[gpu][probe]") {
  tc::test::require_exact_gpu(90);
  CHECK(rs_probe(false) == 0);
  CHECK(rs_probe(true) > 0);  // each register's halves swapped: the probe sees it
}

TEST_CASE("wgmma MN-major B: the descriptor's LBO spans panels and its SBO groups of 8 k, SS and RS", "[gpu][probe]") {
  tc::test::require_exact_gpu(90);
  CHECK(mn_major_probe<false>(false) == 0);
  CHECK(mn_major_probe<true>(false) == 0);
  CHECK(mn_major_probe<false>(true) > 0);  // LBO and SBO swapped: the probe sees it
  CHECK(mn_major_probe<true>(true) > 0);
}

TEST_CASE("TMA of rank 3 and 4 reads a batch x seqlen x heads x head_dim tensor in place", "[gpu][probe]") {
  tc::test::require_exact_gpu(90);
  CHECK(tma_rank_probe(3, 0, 1, 0, 1) == 0);
  CHECK(tma_rank_probe(4, 0, 2, 1, 2) == 0);
  CHECK(tma_rank_probe(4, 24, 1, 1, 1) == 0);  // keys 24..55 of 40: the last 16 rows zero-filled
  CHECK(tma_rank_probe(4, 0, 2, 1, 1) > 0);    // the wrong head asked for: the probe sees it
}
