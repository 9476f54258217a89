// Tests of tc/cublas_grouped.hpp, cuBLAS's grouped GEMM as a yardstick. GPU: on small-integer operands, whose every
// product and sum fp32 holds exactly, each group's C is bit for bit what cublasGemmEx gives for that group alone, in
// chapter 10's layout (op T, op N) with groups of unequal sizes; an empty group is left out and its C untouched.
#include "tc/cublas_grouped.hpp"
#include "tc/cublas_reference.hpp"
#include "tc/device_buffer.hpp"
#include "tc/device_gemm_check.cuh"  // tc::fill_hashed
#include "tc_test/catch.hpp"

#include <cuda_bf16.h>

#include <cstring>
#include <vector>

TEST_CASE("cuBLAS's grouped GEMM gives each group what cublasGemmEx gives it alone, and skips an empty group",
          "[gpu][cublas_grouped]") {
  tc::test::require_gpu(75);
  using T = __nv_bfloat16;
  const tc::CublasHandle cublas;
  const int m = 96, k = 160;           // every group's weights: m x k, op T (lda = k)
  const std::vector<int> n = {40, 0, 17, 64};  // tokens a group: one empty
  int total = 0;
  for (int g : n) total += g;
  tc::DeviceBuffer<T> w(std::size_t(n.size()) * m * k), x(std::size_t(total) * k), c(std::size_t(total) * m),
      alone(std::size_t(total) * m);
  tc::fill_hashed(w.data(), w.size(), 3, 4);  // integers in [-4, 4]: sums below 2^24, exact in fp32
  tc::fill_hashed(x.data(), x.size(), 5, 4);
  tc::fill_hashed(c.data(), c.size(), 7, 4);
  TC_CHECK(cudaMemcpy(alone.data(), c.data(), c.size() * sizeof(T), cudaMemcpyDeviceToDevice));
  std::vector<tc::CublasGroupedGemm<T>::Problem> problems;
  int col = 0;
  for (std::size_t g = 0; g < n.size(); ++g) {
    const T* wg = w.data() + g * m * k;
    problems.push_back({m, n[g], k, wg, k, x.data() + std::size_t(col) * k, k, c.data() + std::size_t(col) * m, m});
    if (n[g] > 0)
      tc::cublas_gemm<T, T>(cublas, tc::Op::T, tc::Op::N, m, n[g], k, 1.0, wg, k, x.data() + std::size_t(col) * k, k,
                            0.5, alone.data() + std::size_t(col) * m, m, alone.data() + std::size_t(col) * m, m);
    col += n[g];
  }
  const tc::CublasGroupedGemm<T> grouped(cublas, tc::Op::T, tc::Op::N, problems, 1.0f, 0.5f);
  CHECK(grouped.groups() == 3);
  grouped.run();
  TC_CHECK(cudaDeviceSynchronize());
  const std::vector<T> got = c.download(), want = alone.download();
  CHECK(std::memcmp(got.data(), want.data(), got.size() * sizeof(T)) == 0);
  CHECK_THROWS_AS(tc::CublasGroupedGemm<T>(cublas, tc::Op::T, tc::Op::N, {{m, 8, k, w.data(), k - 1, x.data(), k,
                                                                             c.data(), m}},
                                           1.0f, 0.0f),
                  std::invalid_argument);  // lda below k with op T
}
