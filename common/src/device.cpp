#include "tc/device.hpp"

#include "tc/check.hpp"
#include "tc/exit_codes.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>

namespace tc {

DeviceInfo query_device(int ordinal) {
  DeviceInfo info;
  info.ordinal = ordinal;
  cudaRuntimeGetVersion(&info.runtime_version);
  cudaDriverGetVersion(&info.driver_version);  // 0 where no driver is installed
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    info.absent_reason = std::string("no GPU found (cudaGetDeviceCount: ") + cudaGetErrorName(status) + ": " +
                         cudaGetErrorString(status) + ")";
    cudaGetLastError();  // the runtime also records this as the last error; clear it so check_launch() cannot misreport it
    return info;
  }
  if (ordinal >= count) {
    info.absent_reason = "no GPU with ordinal " + std::to_string(ordinal) + " (found " + std::to_string(count) + ")";
    return info;
  }
  cudaDeviceProp prop{};
  if (const cudaError_t e = cudaGetDeviceProperties(&prop, ordinal); e != cudaSuccess) {
    info.absent_reason = std::string("cannot read GPU properties: ") + cudaGetErrorString(e);
    return info;
  }
  info.present = true;
  info.name = prop.name;
  info.sm = prop.major * 10 + prop.minor;
  info.multiprocessors = prop.multiProcessorCount;
  info.global_memory_bytes = prop.totalGlobalMem;
  info.l2_cache_bytes = static_cast<std::size_t>(prop.l2CacheSize);
  return info;
}

std::string sm_name(int sm) { return "sm_" + std::to_string(sm); }
std::string compute_capability(int sm) { return std::to_string(sm / 10) + "." + std::to_string(sm % 10); }

std::optional<std::string> unsuitable_reason(const DeviceInfo& device, int min_sm) {
  if (!device.present) return device.absent_reason.empty() ? std::string("no GPU found") : device.absent_reason;
  if (device.sm < min_sm) {
    return "this GPU, " + device.name + ", is SM " + compute_capability(device.sm);
  }
  return std::nullopt;
}

std::string describe(const DeviceInfo& d) {
  auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  if (!d.present) return d.absent_reason + "; CUDA runtime " + version(d.runtime_version);
  char line[256];
  std::snprintf(line, sizeof line, "%s (%s, %d SMs, %.1f GiB), driver %s, runtime %s", d.name.c_str(),
                sm_name(d.sm).c_str(), d.multiprocessors, d.global_memory_bytes / double(1u << 30),
                version(d.driver_version).c_str(), version(d.runtime_version).c_str());
  return line;
}

std::string no_kernel_image_message(const DeviceInfo& device, const std::string& built_for,
                                    const std::string& cuda_error) {
  const std::string arch = std::to_string(device.sm);
  return "this binary has no code for " + device.name + " (" + sm_name(device.sm) + "): it was built for CUDA " +
         "architectures \"" + built_for + "\" (" + cuda_error + "); rebuild with -DCMAKE_CUDA_ARCHITECTURES=" + arch +
         " (or \"native\", or a list that includes " + arch + ")";
}

DeviceInfo require_sm(int min_sm, const std::string& what) {
  DeviceInfo device = query_device();
  if (auto why = unsuitable_reason(device, min_sm)) {
    std::printf("skipped: %s needs a GPU of SM >= %s; %s\n", what.c_str(), compute_capability(min_sm).c_str(),
                why->c_str());
    std::fflush(stdout);
    std::exit(kExitNoGpu);
  }
  TC_CHECK(cudaSetDevice(device.ordinal));
  return device;
}

void require_exact_sm(int sm, const std::string& what) {
  const DeviceInfo device = query_device();
  if (!device.present || device.sm == sm) return;
  std::printf("skipped: %s needs an H100 or H200 (SM %s): its sm_%da code runs on no other GPU, and rebuilding cannot "
              "help; this GPU is %s (SM %s)\n",
              what.c_str(), compute_capability(sm).c_str(), sm, device.name.c_str(),
              compute_capability(device.sm).c_str());
  std::fflush(stdout);
  std::exit(kExitNoGpu);
}

}  // namespace tc
