#include "tc/device.hpp"

#include "tc/check.hpp"
#include "tc/exit_codes.hpp"

#include <cuda_runtime_api.h>

#include <dirent.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tc {

bool nvidia_gpu_present() {
  if (DIR* dev = opendir("/dev")) {
    bool found = false;
    while (const dirent* e = readdir(dev)) {
      const char* n = e->d_name;
      if (std::strncmp(n, "nvidia", 6) != 0 || n[6] == '\0') continue;
      found = true;
      for (const char* c = n + 6; *c != '\0'; ++c) found = found && std::isdigit(static_cast<unsigned char>(*c));
      if (found) break;
    }
    closedir(dev);
    if (found) return true;
  }
  // Some containers expose the GPU without a /dev/nvidiaN node that this process can list; nvidia-smi still sees it.
  FILE* smi = popen("nvidia-smi -L 2>/dev/null", "r");
  if (smi == nullptr) return false;
  char line[512];
  bool listed = false;
  while (std::fgets(line, sizeof line, smi) != nullptr) listed = listed || std::strncmp(line, "GPU ", 4) == 0;
  pclose(smi);
  return listed;
}

DeviceProbes system_probes() {
  DeviceProbes probes;
  probes.device_count = [](int* count) { return int(cudaGetDeviceCount(count)); };
  return probes;
}

DeviceInfo query_device(int ordinal) { return query_device(ordinal, system_probes()); }

DeviceInfo query_device(int ordinal, const DeviceProbes& probes) {
  DeviceInfo info;
  info.ordinal = ordinal;
  cudaRuntimeGetVersion(&info.runtime_version);
  cudaDriverGetVersion(&info.driver_version);  // 0 where no driver is installed
  int count = 0;
  const auto status = static_cast<cudaError_t>(probes.device_count(&count));
  // A failed count is also the runtime's last error: clear it, so that check_launch() cannot misreport it.
  cudaGetLastError();
  if (status != cudaSuccess || count == 0) {
    const std::string said = status != cudaSuccess
                                 ? std::string("cudaGetDeviceCount returned ") + cudaGetErrorName(status) + " (" +
                                       std::to_string(int(status)) + "): " + cudaGetErrorString(status)
                                 : std::string("cudaGetDeviceCount found 0 devices");
    if (probes.gpu_present()) {
      info.cuda_failure = "an NVIDIA GPU is present, but CUDA cannot use it: " + said +
                          " (is the driver older than the CUDA runtime, or not loaded?)";
    } else {
      info.absent_reason = "no NVIDIA GPU found";
    }
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

int current_device_sms() {
  int device = 0, sms = 0;
  TC_CHECK(cudaGetDevice(&device));
  TC_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

std::string sm_name(int sm) { return "sm_" + std::to_string(sm); }
std::string compute_capability(int sm) { return std::to_string(sm / 10) + "." + std::to_string(sm % 10); }

std::optional<std::string> unsuitable_reason(const DeviceInfo& device, int min_sm) {
  if (!device.present) {
    if (!device.cuda_failure.empty()) return device.cuda_failure;
    return device.absent_reason.empty() ? std::string("no NVIDIA GPU found") : device.absent_reason;
  }
  if (device.sm < min_sm) {
    return "this GPU, " + device.name + ", is SM " + compute_capability(device.sm);
  }
  return std::nullopt;
}

std::string describe(const DeviceInfo& d) {
  auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  if (!d.present) {
    return (d.cuda_failure.empty() ? d.absent_reason : d.cuda_failure) + "; CUDA runtime " + version(d.runtime_version);
  }
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

std::string sm_requirement(int sm, bool exact) {
  return exact ? "SM " + compute_capability(sm) + " exactly (" + sm_name(sm) + "a)"
               : "a GPU of SM >= " + compute_capability(sm);
}

namespace {
// A GPU is there but CUDA fails on it: one line and exit 3, never the skip code.
void fail_on_cuda_failure(const DeviceInfo& device, const std::string& what) {
  if (device.cuda_failure.empty()) return;
  std::fflush(stdout);
  std::fprintf(stderr, "error: %s: %s\n", what.c_str(), device.cuda_failure.c_str());
  std::exit(kExitCudaError);
}
}  // namespace

DeviceInfo require_sm(int min_sm, const std::string& what, bool exact) {
  DeviceInfo device = query_device();
  fail_on_cuda_failure(device, what);
  if (auto why = unsuitable_reason(device, min_sm)) {
    std::printf("skipped: %s needs %s; %s\n", what.c_str(), sm_requirement(min_sm, exact).c_str(), why->c_str());
    std::fflush(stdout);
    std::exit(kExitNoGpu);
  }
  TC_CHECK(cudaSetDevice(device.ordinal));
  return device;
}

void require_exact_sm(int sm, const std::string& what) {
  const DeviceInfo device = query_device();
  fail_on_cuda_failure(device, what);
  if (!device.present || device.sm == sm) return;
  std::printf("skipped: %s needs %s: an H100 or H200; its code runs on no other GPU, and rebuilding cannot help; "
              "this GPU is %s (SM %s)\n",
              what.c_str(), sm_requirement(sm, true).c_str(), device.name.c_str(),
              compute_capability(device.sm).c_str());
  std::fflush(stdout);
  std::exit(kExitNoGpu);
}

}  // namespace tc
