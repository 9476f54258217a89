// GPU test of tc::ex2_approx_ftz_f32 (tc/ex2.cuh): its error against 2^x in double over the whole normal range, and
// the special values a masked softmax relies on (2^-inf = 0).
#include "tc/check.hpp"
#include "tc/ex2.cuh"
#include "tc/device_buffer.hpp"
#include "tc_test/catch.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

namespace {
constexpr int kAnyGpu = 75;  // CUDA 13 supports nothing older, and ex2 exists on every SM

__global__ void ex2_kernel(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = tc::ex2_approx_ftz_f32(x[i]);
}

std::vector<float> ex2_on_gpu(const std::vector<float>& x) {
  tc::DeviceBuffer<float> dx(x.size()), dy(x.size());
  dx.upload(x);
  ex2_kernel<<<int((x.size() + 255) / 256), 256>>>(dx.data(), dy.data(), int(x.size()));
  TC_CHECK(cudaGetLastError());
  return dy.download();
}
}  // namespace

TEST_CASE("ex2.approx.ftz is 2^x within 2^-21 relative over the normal range, 0 at -inf and below it", "[gpu]") {
  tc::test::require_gpu(kAnyGpu);
  // Every 1/1024 of a step from -126 to 127.999, plus x just under each integer (the mantissa's worst cases).
  std::vector<float> x;
  for (int i = -126 * 1024; i < 128 * 1024; ++i) x.push_back(float(i) / 1024.0f);
  for (int e = -125; e < 128; ++e) x.push_back(std::nextafter(float(e), -INFINITY));
  const std::vector<float> y = ex2_on_gpu(x);
  double worst = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double want = std::exp2(double(x[i]));
    worst = std::max(worst, std::fabs(double(y[i]) - want) / want);
  }
  INFO("worst relative error " << worst << " (2^" << std::log2(worst) << ") over " << x.size() << " inputs");
  CHECK(worst <= std::ldexp(1.0, -21));  // 4 units in the last place of fp32's 24-bit significand

  const std::vector<float> edge = ex2_on_gpu({-INFINITY, -200.0f, -127.5f, 0.0f, 128.0f, INFINITY});
  CHECK(edge[0] == 0.0f);  // a masked score: P = 0, never NaN
  CHECK(edge[1] == 0.0f);
  CHECK(edge[2] == 0.0f);  // 2^-127.5 is subnormal: flushed
  CHECK(edge[3] == 1.0f);
  CHECK(std::isinf(edge[4]));
  CHECK(std::isinf(edge[5]));
}
