#include "tc/device.hpp"
#include "tc/exit_codes.hpp"
#include "tc_test/catch.hpp"

#include <string>
#include <utility>

namespace {
tc::DeviceInfo fake(int sm) {
  tc::DeviceInfo d;
  d.present = true;
  d.name = "Test GPU";
  d.sm = sm;
  d.multiprocessors = 2;
  d.global_memory_bytes = std::size_t(3) << 30;
  d.driver_version = 13000;
  d.runtime_version = 13000;
  return d;
}
}  // namespace

TEST_CASE("unsuitable_reason accepts a GPU at or above the minimum SM", "[device]") {
  CHECK_FALSE(tc::unsuitable_reason(fake(75), 75).has_value());
  CHECK_FALSE(tc::unsuitable_reason(fake(90), 80).has_value());
}

TEST_CASE("unsuitable_reason names a GPU below the minimum SM", "[device]") {
  const auto why = tc::unsuitable_reason(fake(70), 75);
  REQUIRE(why.has_value());
  CHECK(*why == "this GPU, Test GPU, is SM 7.0");
}

TEST_CASE("unsuitable_reason passes on why there is no GPU", "[device]") {
  tc::DeviceInfo none;
  none.absent_reason = "no GPU with ordinal 1 (found 1)";
  CHECK(tc::unsuitable_reason(none, 75).value() == none.absent_reason);
  CHECK(tc::unsuitable_reason(tc::DeviceInfo{}, 75).value() == "no NVIDIA GPU found");
}

namespace {
// query_device on a made-up machine: whether a GPU is present, and what cudaGetDeviceCount returns (a cudaError_t
// value) and counts.
tc::DeviceInfo query_fake(bool gpu_present, int status, int count = 0) {
  tc::DeviceProbes probes;
  probes.gpu_present = [=] { return gpu_present; };
  probes.device_count = [=](int* n) {
    *n = count;
    return status;
  };
  return tc::query_device(0, probes);
}
}  // namespace

TEST_CASE("with no GPU present, any cudaGetDeviceCount error is a skip that says plainly no NVIDIA GPU was found",
          "[device]") {
  for (int status : {35, 100, 999}) {  // cudaErrorInsufficientDriver, cudaErrorNoDevice, cudaErrorUnknown
    const tc::DeviceInfo d = query_fake(false, status);
    INFO("cudaGetDeviceCount returned " << status);
    CHECK_FALSE(d.present);
    CHECK(d.cuda_failure.empty());
    CHECK(tc::unsuitable_reason(d, 75).value() == "no NVIDIA GPU found");
  }
}

TEST_CASE("with a GPU present, every cudaGetDeviceCount error and a count of 0 are failures, never skips",
          "[device]") {
  // 35 is what a GPU-less machine returns too: only the presence probe tells a driver older than the runtime apart.
  for (auto [status, count] : {std::pair{35, 0}, std::pair{100, 0}, std::pair{999, 0}, std::pair{0, 0}}) {
    const tc::DeviceInfo d = query_fake(true, status, count);
    INFO("cudaGetDeviceCount returned " << status << ", count " << count << ": " << d.cuda_failure);
    CHECK_FALSE(d.present);
    CHECK(d.absent_reason.empty());
    CHECK(d.cuda_failure.find("an NVIDIA GPU is present, but CUDA cannot use it") == 0);
    CHECK(d.cuda_failure.find('\n') == std::string::npos);
  }
  CHECK(query_fake(true, 35).cuda_failure.find("cudaErrorInsufficientDriver (35)") != std::string::npos);
  CHECK(query_fake(true, 100).cuda_failure.find("cudaErrorNoDevice (100)") != std::string::npos);
}

TEST_CASE("the skip lines name what a chapter needs: a minimum SM, or SM 9.0 exactly for sm_90a code", "[device]") {
  CHECK(tc::sm_requirement(80, false) == "a GPU of SM >= 8.0");
  CHECK(tc::sm_requirement(90, true) == "SM 9.0 exactly (sm_90a)");
}

TEST_CASE("SM numbers print as sm_XY and X.Y", "[device]") {
  CHECK(tc::sm_name(90) == "sm_90");
  CHECK(tc::compute_capability(75) == "7.5");
  CHECK(tc::describe(fake(90)) == "Test GPU (sm_90, 2 SMs, 3.0 GiB), driver 13.0, runtime 13.0");
}

TEST_CASE("query_device never throws and explains an absent GPU", "[device]") {
  tc::DeviceInfo d;
  REQUIRE_NOTHROW(d = tc::query_device());
  if (!d.present) CHECK_FALSE(d.absent_reason.empty());
  if (d.present) CHECK(d.sm >= 10);
  CHECK(d.runtime_version > 0);
}

TEST_CASE("the wrong-arch message names the GPU, what the binary holds and the fix, on one line", "[device]") {
  const std::string m = tc::no_kernel_image_message(fake(90), "80-real", "cudaErrorNoKernelImageForDevice: ...");
  CHECK(m == "this binary has no code for Test GPU (sm_90): it was built for CUDA architectures \"80-real\" "
             "(cudaErrorNoKernelImageForDevice: ...); rebuild with -DCMAKE_CUDA_ARCHITECTURES=90 (or \"native\", or a "
             "list that includes 90)");
  CHECK(m.find('\n') == std::string::npos);
}

TEST_CASE("the wrong-arch exit code is neither a skip code nor another error's", "[device]") {
  // 77 is ctest's and Automake's "skipped"; 4 is what Catch2 3.x test executables exit for a skipped test.
  for (int other : {tc::kExitOk, tc::kExitMismatch, tc::kExitUsage, tc::kExitCudaError, tc::kExitNoGpu, 4}) {
    CHECK(tc::kExitNoKernelImage != other);
  }
}
