#include "tc/tma.hpp"

#include "tc/check.hpp"

#include <cuda_runtime.h>

#include <stdexcept>

namespace tc {

namespace {
std::string dimension_name(int i) {
  return i == 0 ? "inner dimension" : i == 1 ? "rows" : "dimension " + std::to_string(i);
}
}  // namespace

std::optional<std::string> tma_problem(const TmaTensor& t) {
  if (t.rank < 1 || t.rank > kTmaMaxRank) {
    return "TMA rank is " + std::to_string(t.rank) + "; it must be 1.." + std::to_string(kTmaMaxRank);
  }
  for (int i = 0; i < t.rank; ++i) {
    // The box is what one TMA instruction moves; the hardware counts each dimension in 8 bits (1..256).
    if (t.box[i] < 1 || t.box[i] > 256) {
      return "TMA box " + dimension_name(i) + " is " + std::to_string(t.box[i]) + " elements; it must be 1..256";
    }
  }
  const std::uint64_t inner_bytes = std::uint64_t(t.box[0]) * std::uint64_t(t.element_bytes);
  if (inner_bytes % 16 != 0) {
    return "TMA box inner dimension is " + std::to_string(inner_bytes) + " bytes; it must be a multiple of 16";
  }
  const int span = swizzle_span_bytes(t.swizzle);
  if (span > 0 && inner_bytes > std::uint64_t(span)) {
    return "TMA box inner dimension is " + std::to_string(inner_bytes) + " bytes; the " + std::to_string(span) +
           "-byte swizzle holds at most " + std::to_string(span);
  }
  for (int i = 1; i < t.rank; ++i) {
    const std::uint64_t stride = t.strides_bytes[i - 1];
    if (stride % 16 != 0 || stride >= (std::uint64_t(1) << 40)) {
      const std::string what = i == 1 ? "row stride" : "stride of dimension " + std::to_string(i);
      return "TMA " + what + " is " + std::to_string(stride) +
             " bytes; it must be a multiple of 16 below 2^40 (a leading dimension of a multiple of 8 f16 elements)";
    }
  }
  if (reinterpret_cast<std::uintptr_t>(t.base) % 16 != 0) {
    return std::string("TMA base address must be 16-byte aligned");
  }
  for (int i = 0; i < t.rank; ++i) {
    const std::uint64_t d = t.dims[i];
    if (d < 1 || d > (std::uint64_t(1) << 32)) return "TMA dimension " + std::to_string(d) + " is outside 1..2^32";
  }
  // Rows that overlap the contiguous dimension are a wrong leading dimension, never a layout: refuse them.
  if (t.rank > 1 && t.strides_bytes[0] < t.dims[0] * std::uint64_t(t.element_bytes)) {
    return "TMA row stride " + std::to_string(t.strides_bytes[0]) + " bytes is shorter than a row";
  }
  return std::nullopt;
}

CUtensorMap make_tma(const TmaTensor& t, CUtensorMapDataType type) {
  if (auto problem = tma_problem(t)) throw std::invalid_argument(*problem);
  using Encode = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                              const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                              CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
  static Encode encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult status{};
    // 12000: the ABI of cuTensorMapEncodeTiled as CUDA 12.0 introduced it, which every later driver keeps.
    TC_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &status));
    if (status != cudaDriverEntryPointSuccess || fn == nullptr) {
      throw CudaError("the CUDA driver has no cuTensorMapEncodeTiled (TMA needs a CUDA 12 driver or newer)");
    }
    return reinterpret_cast<Encode>(fn);
  }();
  CUtensorMap map{};
  cuuint64_t dims[kTmaMaxRank] = {}, strides[kTmaMaxRank - 1] = {};
  cuuint32_t box[kTmaMaxRank] = {}, element_strides[kTmaMaxRank] = {};
  for (int i = 0; i < t.rank; ++i) {
    dims[i] = t.dims[i];
    box[i] = cuuint32_t(t.box[i]);
    element_strides[i] = 1;  // every element of the box, no striding
    if (i > 0) strides[i - 1] = t.strides_bytes[i - 1];  // dimension 0 is contiguous: it has no stride
  }
  const CUtensorMapSwizzle swizzle = t.swizzle == Swizzle::B128  ? CU_TENSOR_MAP_SWIZZLE_128B
                                     : t.swizzle == Swizzle::B64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                     : t.swizzle == Swizzle::B32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                                 : CU_TENSOR_MAP_SWIZZLE_NONE;
  // L2 promotion to 256 bytes: each box row is 128 bytes of a longer row, and the neighbouring boxes along K follow.
  const CUresult rc = encode(&map, type, cuuint32_t(t.rank), const_cast<void*>(t.base), dims, strides, box,
                             element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                             CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (rc != CUDA_SUCCESS) throw CudaError("cuTensorMapEncodeTiled failed with CUresult " + std::to_string(int(rc)));
  return map;
}

TmaTensor as_tensor(const Tma2d& t) {
  TmaTensor tensor;
  tensor.base = t.base;
  tensor.element_bytes = t.element_bytes;
  tensor.rank = 2;
  tensor.dims = {t.inner, t.rows};
  tensor.strides_bytes = {t.row_stride_bytes};
  tensor.box = {t.box_inner, t.box_rows};
  tensor.swizzle = t.swizzle;
  return tensor;
}

std::optional<std::string> tma_2d_problem(const Tma2d& t) { return tma_problem(as_tensor(t)); }

CUtensorMap make_tma_2d(const Tma2d& t, CUtensorMapDataType type) { return make_tma(as_tensor(t), type); }

}  // namespace tc
