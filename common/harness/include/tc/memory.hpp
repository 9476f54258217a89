// Memory before allocation: does a problem fit in this machine's host memory and this GPU's free memory?
//
// A chapter binary asked for 100000^3 would otherwise spend minutes filling host operands before the first
// allocation fails. Instead it adds up what it will allocate (MemoryNeed, in bytes, with arithmetic that cannot
// overflow silently), and require_memory compares that with what is free, before anything is allocated: if it does
// not fit, it throws tc::TooLargeError with one line giving both figures, which tc::run_main prints as "error: ..."
// and turns into exit code tc::kExitTooLarge (6).
// Free host memory is Linux's MemAvailable (/proc/meminfo: what can be allocated without swapping), else the
// physical pages free (sysconf); free device memory is cudaMemGetInfo's.
// Units: bytes. Errors: TooLargeError (also for a byte count past 2^64 - 1); tc::CudaError from cudaMemGetInfo.
// Sources: proc(5), "/proc/meminfo"; CUDA Runtime API, "Memory Management" (cudaMemGetInfo).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>

namespace tc {

// A problem that does not fit in memory (or whose size in bytes does not even fit in 64 bits).
class TooLargeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct MemoryNeed {
  std::uint64_t host_bytes = 0;
  std::uint64_t device_bytes = 0;
};

// count * element_bytes, or TooLargeError if it overflows 64 bits.
std::uint64_t checked_bytes(std::uint64_t count, std::uint64_t element_bytes);
// The sum, or TooLargeError if it overflows 64 bits.
std::uint64_t checked_sum(std::initializer_list<std::uint64_t> terms);
// need + more, field by field (checked_sum).
MemoryNeed operator+(const MemoryNeed& need, const MemoryNeed& more);

// "1.5 GB": bytes in decimal units (kB, MB, GB, TB), three significant figures.
std::string format_bytes(std::uint64_t bytes);

// Why `need` does not fit in host_free and device_free bytes, or nothing if it fits: one line naming `what`, what it
// needs and what is free. Pure, so host tests can feed it any figures.
std::optional<std::string> memory_problem(const std::string& what, const MemoryNeed& need, std::uint64_t host_free,
                                          std::uint64_t device_free);

// Bytes of host memory available now (see above); 0 if neither source answers.
std::uint64_t available_host_bytes();

// Throws TooLargeError (memory_problem's line) unless `need` fits in the host memory available now and in the current
// GPU's free memory. Call it after tc::require_sm, before allocating.
void require_memory(const std::string& what, const MemoryNeed& need);

// The most device memory a GPU of SM 9.0 has: the GH200's 144 GB of HBM3e (NVIDIA GH200 Grace Hopper Superchip
// datasheet; the H200's is 141 GB), with room for how drivers count it. sm_90a code runs on SM 9.0 alone, so a
// problem of an sm_90a chapter that needs more can run on no GPU at all.
inline constexpr std::uint64_t kSm90MostDeviceBytes = std::uint64_t(160) << 30;

// What can be refused before the GPU is asked for, with no CUDA call: `need`'s host memory against what this machine
// has free and, where most_device_bytes > 0 (the most any GPU that runs the code has, e.g. kSm90MostDeviceBytes), its
// device memory against that. A problem too large is then an error (exit 6) on a machine without a GPU too, and comes
// before any other output. Errors: TooLargeError, one line with the figures.
void require_host_memory(const std::string& what, const MemoryNeed& need, std::uint64_t most_device_bytes = 0);

}  // namespace tc
