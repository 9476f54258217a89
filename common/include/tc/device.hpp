// Which GPU is there, and may this chapter run on it?
//
// query_device() never throws: any error from cudaGetDeviceCount counts as "no GPU". That matters because a machine
// without a GPU usually returns an error (35, cudaErrorInsufficientDriver, where no driver is installed; 100,
// cudaErrorNoDevice, where a driver sees no device) rather than a count of 0.
// SM versions are written as integers major * 10 + minor: 75 for sm_75 (Turing), 80 (A100), 90 (H100, H200).
// require_sm(min_sm, what) is what chapter binaries call before their first kernel: on an unsuitable machine it prints
// one line, "skipped: <what> needs a GPU of SM >= 7.5; <reason>", and exits with tc::kExitNoGpu (77).
// Source: CUDA Runtime API, "Device Management"; CUDA C++ Programming Guide, "Compute Capabilities".
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace tc {

struct DeviceInfo {
  bool present = false;
  std::string absent_reason;  // why there is no usable GPU, when present is false
  int ordinal = 0;
  std::string name;
  int sm = 0;  // major * 10 + minor
  int multiprocessors = 0;
  std::size_t global_memory_bytes = 0;
  std::size_t l2_cache_bytes = 0;  // timings on operands smaller than this may run from L2, not DRAM
  int driver_version = 0;   // e.g. 13000 for CUDA 13.0
  int runtime_version = 0;  // likewise
};

DeviceInfo query_device(int ordinal = 0);

// "sm_75"-style text for an integer SM version, and "7.5" as the compute capability.
std::string sm_name(int sm);
std::string compute_capability(int sm);

// Why this device cannot run code needing min_sm, or nothing if it can. Pure: host-testable with made-up devices.
std::optional<std::string> unsuitable_reason(const DeviceInfo& device, int min_sm);

// One line describing the device, e.g. "NVIDIA H200 (sm_90, 132 SMs, 139.8 GiB), driver 13.0, runtime 13.0".
std::string describe(const DeviceInfo& device);

// The one line the wrong-architecture guard (tc/arch_guard.cuh) prints when a binary built for the architectures
// `built_for` (CMAKE_CUDA_ARCHITECTURES syntax, e.g. "80-real") has no code for `device`; `cuda_error` is what the
// runtime said. It names the GPU, what the binary holds and the configure option that fixes it. Pure: host-testable.
std::string no_kernel_image_message(const DeviceInfo& device, const std::string& built_for,
                                    const std::string& cuda_error);

// Returns the device if it can run code needing min_sm (and makes it current); otherwise prints
// "skipped: <what> needs a GPU of SM >= X.Y; <reason>" to stdout and exits with kExitNoGpu.
DeviceInfo require_sm(int min_sm, const std::string& what);

// For sm_90a code (wgmma, setmaxnreg), which runs on SM 9.0 alone: where a GPU is present and its SM is not `sm`
// exactly, prints "skipped: <what> needs an H100 or H200 (SM 9.0): its sm_90a code runs on no other GPU, and
// rebuilding cannot help; this GPU is <name> (SM x.y)" and exits tc::kExitNoGpu (77). Without a GPU it returns, and
// require_sm reports that later. Errors: none besides the exit.
void require_exact_sm(int sm, const std::string& what);

}  // namespace tc
