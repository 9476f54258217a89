#include "tc/tma.hpp"

#include "tc/check.hpp"

#include <cuda_runtime.h>

#include <stdexcept>

namespace tc {

std::optional<std::string> tma_2d_problem(const Tma2d& t) {
  auto box_problem = [](const char* what, int box) -> std::optional<std::string> {
    // The box is what one TMA instruction moves; the hardware counts each dimension in 8 bits (1..256).
    if (box >= 1 && box <= 256) return std::nullopt;
    return std::string("TMA box ") + what + " is " + std::to_string(box) + " elements; it must be 1..256";
  };
  if (auto p = box_problem("inner dimension", t.box_inner)) return p;
  if (auto p = box_problem("rows", t.box_rows)) return p;
  const std::uint64_t inner_bytes = std::uint64_t(t.box_inner) * std::uint64_t(t.element_bytes);
  if (inner_bytes % 16 != 0) {
    return "TMA box inner dimension is " + std::to_string(inner_bytes) + " bytes; it must be a multiple of 16";
  }
  const int span = swizzle_span_bytes(t.swizzle);
  if (span > 0 && inner_bytes > std::uint64_t(span)) {
    return "TMA box inner dimension is " + std::to_string(inner_bytes) + " bytes; the " + std::to_string(span) +
           "-byte swizzle holds at most " + std::to_string(span);
  }
  if (t.row_stride_bytes % 16 != 0 || t.row_stride_bytes >= (std::uint64_t(1) << 40)) {
    return "TMA row stride is " + std::to_string(t.row_stride_bytes) +
           " bytes; it must be a multiple of 16 below 2^40 (a leading dimension of a multiple of 8 f16 elements)";
  }
  if (reinterpret_cast<std::uintptr_t>(t.base) % 16 != 0) {
    return std::string("TMA base address must be 16-byte aligned");
  }
  for (std::uint64_t d : {t.inner, t.rows}) {
    if (d < 1 || d > (std::uint64_t(1) << 32)) return "TMA dimension " + std::to_string(d) + " is outside 1..2^32";
  }
  if (t.row_stride_bytes < t.inner * std::uint64_t(t.element_bytes)) {
    return "TMA row stride " + std::to_string(t.row_stride_bytes) + " bytes is shorter than a row";
  }
  return std::nullopt;
}

CUtensorMap make_tma_2d(const Tma2d& t, CUtensorMapDataType type) {
  if (auto problem = tma_2d_problem(t)) throw std::invalid_argument(*problem);
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
  const cuuint64_t dims[2] = {t.inner, t.rows};
  const cuuint64_t strides[1] = {t.row_stride_bytes};  // dimension 0 is contiguous, so only dimension 1 has a stride
  const cuuint32_t box[2] = {cuuint32_t(t.box_inner), cuuint32_t(t.box_rows)};
  const cuuint32_t element_strides[2] = {1, 1};  // every element of the box, no striding
  const CUtensorMapSwizzle swizzle = t.swizzle == Swizzle::B128  ? CU_TENSOR_MAP_SWIZZLE_128B
                                     : t.swizzle == Swizzle::B64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                     : t.swizzle == Swizzle::B32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                                 : CU_TENSOR_MAP_SWIZZLE_NONE;
  // L2 promotion to 256 bytes: each box row is 128 bytes of a longer row, and the neighbouring boxes along K follow.
  const CUresult rc = encode(&map, type, 2, const_cast<void*>(t.base), dims, strides, box, element_strides,
                             CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (rc != CUDA_SUCCESS) throw CudaError("cuTensorMapEncodeTiled failed with CUresult " + std::to_string(int(rc)));
  return map;
}

}  // namespace tc
