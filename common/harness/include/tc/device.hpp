// Which GPU is there, and may this chapter run on it?
//
// query_device() never throws. Whether a failing cudaGetDeviceCount means "skip" or "fail" is decided by whether an
// NVIDIA GPU is physically present (nvidia_gpu_present: a /dev/nvidiaN node, or nvidia-smi listing one), never by the
// error code: a machine with no GPU and no driver returns 35 (cudaErrorInsufficientDriver), and so does a GPU whose
// driver is older than the runtime. No GPU present: "no NVIDIA GPU found", a skip (exit 77). A GPU present but any
// cudaGetDeviceCount error (35 and 100, cudaErrorNoDevice, included) or a count of 0: DeviceInfo::cuda_failure, a
// failure (exit 3 for a chapter, a failed test for a test), so that a broken driver cannot pass as "no GPU".
// SM versions are written as integers major * 10 + minor: 75 for sm_75 (Turing), 80 (A100), 90 (H100, H200).
// require_sm(min_sm, what) is what chapter binaries call before their first kernel: on an unsuitable machine it prints
// one line, "skipped: <what> needs a GPU of SM >= 7.5; <reason>", and exits with tc::kExitNoGpu (77); where CUDA
// fails on a present GPU it prints "error: <what>: <cuda_failure>" to stderr and exits tc::kExitCudaError (3).
// Source: CUDA Runtime API, "Device Management"; CUDA C++ Programming Guide, "Compute Capabilities".
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace tc {

struct DeviceInfo {
  bool present = false;       // a GPU that CUDA can use
  std::string absent_reason;  // why there is no usable GPU, when present is false
  // Non-empty when a GPU is physically present but CUDA cannot use it (the driver older than the runtime, a device
  // the driver does not see): one line naming the cudaGetDeviceCount error. A failure, never a skip.
  std::string cuda_failure;
  int ordinal = 0;
  std::string name;
  int sm = 0;  // major * 10 + minor
  int multiprocessors = 0;
  std::size_t global_memory_bytes = 0;
  std::size_t l2_cache_bytes = 0;  // timings on operands smaller than this may run from L2, not DRAM
  int driver_version = 0;   // e.g. 13000 for CUDA 13.0
  int runtime_version = 0;  // likewise
};

// Whether an NVIDIA GPU is physically present, whatever CUDA says: a device node /dev/nvidia<N> (N a number, not
// nvidiactl or nvidia-uvm, which exist in GPU-less containers too), or `nvidia-smi -L` listing a "GPU ".
bool nvidia_gpu_present();

// What query_device asks the machine, replaceable in tests ("a GPU present, cudaGetDeviceCount returns 35").
struct DeviceProbes {
  std::function<bool()> gpu_present = nvidia_gpu_present;
  // cudaGetDeviceCount: the cudaError_t it returns, as an int, and the count through the pointer.
  std::function<int(int* count)> device_count;
};
// The probes of this machine: nvidia_gpu_present and the CUDA runtime's cudaGetDeviceCount.
DeviceProbes system_probes();

DeviceInfo query_device(int ordinal = 0);
DeviceInfo query_device(int ordinal, const DeviceProbes& probes);

// The SMs of the current device (cudaDevAttrMultiProcessorCount): what a persistent grid, a wave count or a schedule
// is sized to at launch. Asked each call, so it follows cudaSetDevice; the runtime answers from its cache, without a
// driver round trip. Errors: tc::CudaError where there is no current device. Source: CUDA Runtime API, "Device
// Management" (cudaDeviceGetAttribute).
int current_device_sms();

// "sm_75"-style text for an integer SM version, and "7.5" as the compute capability.
std::string sm_name(int sm);
std::string compute_capability(int sm);

// Why this device cannot run code needing min_sm, or nothing if it can: a skip reason ("no NVIDIA GPU found", an SM
// too low). A device with a cuda_failure is not unsuitable but broken: callers fail on it before asking this. Pure:
// host-testable with made-up devices.
std::optional<std::string> unsuitable_reason(const DeviceInfo& device, int min_sm);

// What a chapter needs, as its skip lines say it: "a GPU of SM >= 8.0", or for sm_90a code (exact) "SM 9.0 exactly
// (sm_90a)".
std::string sm_requirement(int sm, bool exact);

// One line describing the device, e.g. "NVIDIA H200 (sm_90, 132 SMs, 139.8 GiB), driver 13.0, runtime 13.0".
std::string describe(const DeviceInfo& device);

// The one line the wrong-architecture guard (tc/arch_guard.cuh) prints when a binary built for the architectures
// `built_for` (CMAKE_CUDA_ARCHITECTURES syntax, e.g. "80-real") has no code for `device`; `cuda_error` is what the
// runtime said. It names the GPU, what the binary holds and the configure option that fixes it. Pure: host-testable.
std::string no_kernel_image_message(const DeviceInfo& device, const std::string& built_for,
                                    const std::string& cuda_error);

// Returns the device if it can run code needing min_sm (and makes it current). Otherwise: where CUDA fails on a
// present GPU, prints "error: <what>: <cuda_failure>" to stderr and exits kExitCudaError (3); else prints "skipped:
// <what> needs <sm_requirement(min_sm, exact)>; <reason>" to stdout and exits kExitNoGpu (77). exact: the chapter's
// code is sm_90a (tc::require_exact_sm checks the SM itself).
DeviceInfo require_sm(int min_sm, const std::string& what, bool exact = false);

// For sm_90a code (wgmma, setmaxnreg), which runs on SM 9.0 alone: where a GPU is present and its SM is not `sm`
// exactly, prints "skipped: <what> needs SM 9.0 exactly (sm_90a): an H100 or H200; its code runs on no other GPU, and
// rebuilding cannot help; this GPU is <name> (SM x.y)" and exits tc::kExitNoGpu (77). Where CUDA fails on a present
// GPU: exit 3, as require_sm. Without a GPU it returns, and require_sm reports that later.
void require_exact_sm(int sm, const std::string& what);

}  // namespace tc
