#include "tc/check.hpp"

namespace tc::detail {

void throw_cuda_error(const char* file, int line, const char* expr, const std::string& message) {
  throw CudaError(std::string(file) + ":" + std::to_string(line) + ": " + expr + ": " + message);
}

}  // namespace tc::detail
