#include "tc/memory.hpp"

#include "tc/check.hpp"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

namespace tc {

std::uint64_t checked_bytes(std::uint64_t count, std::uint64_t element_bytes) {
  if (element_bytes != 0 && count > std::numeric_limits<std::uint64_t>::max() / element_bytes) {
    throw TooLargeError("the problem needs more than 2^64 bytes: " + std::to_string(count) + " elements of " +
                        std::to_string(element_bytes) + " bytes");
  }
  return count * element_bytes;
}

std::uint64_t checked_sum(std::initializer_list<std::uint64_t> terms) {
  std::uint64_t total = 0;
  for (std::uint64_t t : terms) {
    if (t > std::numeric_limits<std::uint64_t>::max() - total) {
      throw TooLargeError("the problem needs more than 2^64 bytes");
    }
    total += t;
  }
  return total;
}

MemoryNeed operator+(const MemoryNeed& need, const MemoryNeed& more) {
  return {checked_sum({need.host_bytes, more.host_bytes}), checked_sum({need.device_bytes, more.device_bytes})};
}

std::string format_bytes(std::uint64_t bytes) {
  const char* units[] = {"bytes", "kB", "MB", "GB", "TB", "PB", "EB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1000.0 && unit < 6) {
    value /= 1000.0;
    ++unit;
  }
  char text[32];
  if (unit == 0) std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
  else std::snprintf(text, sizeof text, "%.3g %s", value, units[unit]);
  return text;
}

std::optional<std::string> memory_problem(const std::string& what, const MemoryNeed& need, std::uint64_t host_free,
                                          std::uint64_t device_free) {
  const bool host_short = need.host_bytes > host_free;
  const bool device_short = need.device_bytes > device_free;
  if (!host_short && !device_short) return std::nullopt;
  return what + " needs " + format_bytes(need.host_bytes) + " of host memory and " + format_bytes(need.device_bytes) +
         " of GPU memory; " + format_bytes(host_free) + " and " + format_bytes(device_free) + " are free (" +
         (host_short && device_short ? "neither fits" : host_short ? "host memory is short" : "GPU memory is short") +
         ")";
}

std::uint64_t available_host_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);) {
    std::istringstream fields(line);
    std::string key;
    std::uint64_t kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") return kib * 1024;  // proc(5) gives kibibytes
  }
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : 0;
}

void require_host_memory(const std::string& what, const MemoryNeed& need, std::uint64_t most_device_bytes) {
  const std::uint64_t host_free = available_host_bytes();
  if (need.host_bytes > host_free) {
    throw TooLargeError(what + " needs " + format_bytes(need.host_bytes) + " of host memory; " +
                        format_bytes(host_free) + " is free (host memory is short)");
  }
  if (most_device_bytes > 0 && need.device_bytes > most_device_bytes) {
    throw TooLargeError(what + " needs " + format_bytes(need.device_bytes) + " of GPU memory; no GPU this code runs on "
                        "has more than " + format_bytes(most_device_bytes));
  }
}

void require_memory(const std::string& what, const MemoryNeed& need) {
  std::size_t device_free = 0, device_total = 0;
  TC_CHECK(cudaMemGetInfo(&device_free, &device_total));
  if (auto problem = memory_problem(what, need, available_host_bytes(), device_free)) throw TooLargeError(*problem);
}

}  // namespace tc
