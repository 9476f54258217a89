// Chapter 11 -- the yardstick: cuDNN's fused attention (SDPA), through the cuDNN frontend's C++ graph API, on the same
// tensors as the chapter's kernels. Optional: built only where CMake found cuDNN and the frontend's headers
// (TC_HAVE_CUDNN, 11_flash_attention/CMakeLists.txt); elsewhere the chapter times its own kernels alone.
//
// The graph: Q [b, h, s_q, d], K and V [b, h_kv, s_k, d] and O as cuDNN names the dimensions, with the strides of
// the chapter's [b, s, h, d] storage (read in place, no copy); the scale 1 / sqrt(d); the causal mask aligned to the
// bottom right, as the chapter's (problem.hpp); fp32 compute and intermediates, bf16 or fp16 I/O; and the softmax
// statistics, cuDNN's logsumexp per query row ([b, h, s_q, 1], fp32, natural log), which is the chapter's L.
// Varlen batches are not built (the benchmark protocol has none). Errors: std::runtime_error with cuDNN's message,
// one line, where a graph is not supported or fails; tc::CudaError from the workspace. Source: cuDNN frontend
// documentation, "Scaled Dot Product Attention" (docs/operations/Attention.md); cuDNN Developer Guide, "Fused
// Flash Attention".
#pragma once

#if defined(TC_HAVE_CUDNN)

#include "problem.hpp"

#include "tc/device_buffer.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cudnn.h>

#include <cstring>  // before the frontend: its 1.32 shim calls std::strlen without including <cstring>

#include <cudnn_frontend.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>

namespace attention {

class CudnnSdpa {
 public:
  // Builds the graph for `s` and element type T (__half or __nv_bfloat16): validated, lowered, its first supported
  // plan of heuristic mode A built. Errors: std::runtime_error (unsupported, or a varlen shape).
  template <typename T>
  static CudnnSdpa make(const Shape& s) {
    return CudnnSdpa(s, std::is_same_v<T, __half> ? cudnn_frontend::DataType_t::HALF
                                                  : cudnn_frontend::DataType_t::BFLOAT16);
  }

  // O and L of q, k, v (the chapter's layouts), on `stream`. Errors: std::runtime_error.
  void run(const void* q, const void* k, const void* v, void* o, float* lse, cudaStream_t stream) {
    check(cudnnSetStream(handle_.get(), stream), "cudnnSetStream");
    std::unordered_map<std::int64_t, void*> pack = {{kQ, const_cast<void*>(q)}, {kK, const_cast<void*>(k)},
                                                    {kV, const_cast<void*>(v)}, {kO, o},
                                                    {kStats, lse}};
    check(graph_->execute(handle_.get(), pack, workspace_.data()), "execute");
  }

  // "9.19.1": the cuDNN library the process loaded (cudnnGetVersion), not the headers'.
  static std::string version() {
    const std::size_t v = cudnnGetVersion();  // major * 10000 + minor * 100 + patch since cuDNN 9
    return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
  }

 private:
  static constexpr std::int64_t kQ = 1, kK = 2, kV = 3, kO = 4, kStats = 5;  // the variant pack's uids

  struct HandleDeleter {
    void operator()(cudnnHandle_t h) const { cudnnDestroy(h); }
  };
  std::unique_ptr<std::remove_pointer_t<cudnnHandle_t>, HandleDeleter> handle_;
  std::shared_ptr<cudnn_frontend::graph::Graph> graph_;
  tc::DeviceBuffer<unsigned char> workspace_;

  static void check(cudnnStatus_t status, const char* what) {
    if (status != CUDNN_STATUS_SUCCESS)
      throw std::runtime_error(std::string("cuDNN ") + what + ": " + cudnnGetErrorString(status));
  }
  static void check(const cudnn_frontend::error_t& e, const char* what) {
    if (e.is_bad()) throw std::runtime_error(std::string("cuDNN SDPA ") + what + ": " + e.err_msg);
  }

  CudnnSdpa(const Shape& s, cudnn_frontend::DataType_t io) {
    namespace fe = cudnn_frontend;
    if (!s.cu_seqlens.empty()) throw std::runtime_error("the cuDNN yardstick is built for fixed lengths, not varlen");
    cudnnHandle_t h = nullptr;
    check(cudnnCreate(&h), "cudnnCreate");
    handle_.reset(h);
    graph_ = std::make_shared<fe::graph::Graph>();
    graph_->set_io_data_type(io).set_intermediate_data_type(fe::DataType_t::FLOAT).set_compute_data_type(
        fe::DataType_t::FLOAT);
    const std::int64_t b = s.batch, hq = s.heads, hk = s.kv_heads, sq = s.seqlen_q, sk = s.seqlen_k, d = s.head_dim;
    // [b, s, h, d] storage as cuDNN's [b, h, s, d] dimensions: a row of tokens is h * d apart, a head d.
    auto tensor = [&](const char* name, std::int64_t uid, std::int64_t heads, std::int64_t seq) {
      return graph_->tensor(fe::graph::Tensor_attributes()
                                .set_name(name)
                                .set_uid(uid)
                                .set_dim({b, heads, seq, d})
                                .set_stride({seq * heads * d, d, heads * d, 1}));
    };
    auto q = tensor("Q", kQ, hq, sq);
    auto k = tensor("K", kK, hk, sk);
    auto v = tensor("V", kV, hk, sk);
    auto options = fe::graph::SDPA_attributes()
                       .set_name("flash_attention")
                       .set_generate_stats(true)
                       .set_attn_scale(1.0f / std::sqrt(float(d)));
    if (s.causal) options.set_causal_mask_bottom_right(true);
    auto [o, stats] = graph_->sdpa(q, k, v, options);
    o->set_output(true).set_uid(kO).set_dim({b, hq, sq, d}).set_stride({sq * hq * d, d, hq * d, 1});
    stats->set_output(true).set_uid(kStats).set_data_type(fe::DataType_t::FLOAT).set_dim({b, hq, sq, 1}).set_stride(
        {hq * sq, sq, 1, 1});
    check(graph_->validate(), "validate");
    check(graph_->build_operation_graph(handle_.get()), "build_operation_graph");
    check(graph_->create_execution_plans({fe::HeurMode_t::A}), "create_execution_plans");
    check(graph_->check_support(handle_.get()), "check_support");
    check(graph_->build_plans(handle_.get()), "build_plans");
    std::int64_t bytes = 0;
    check(graph_->get_workspace_size(bytes), "get_workspace_size");
    workspace_ = tc::DeviceBuffer<unsigned char>(std::size_t(bytes));
  }
};

}  // namespace attention

#endif  // TC_HAVE_CUDNN
