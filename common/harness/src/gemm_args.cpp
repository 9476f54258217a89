#include "tc/gemm_args.hpp"

#include <string>

#include <stdexcept>

namespace tc {
namespace {
// `what` says which storage the rule comes from, e.g. "for op(A) = N".
void require_ld(const char* name, int ld, int rows, const char* rows_name, const std::string& what) {
  const int min_ld = rows > 1 ? rows : 1;
  if (ld < min_ld) {
    throw std::invalid_argument(std::string(name) + " = " + std::to_string(ld) + " is too small: it must be >= max(1, " +
                                rows_name + ") = " + std::to_string(min_ld) + " " + what + " (column-major storage)");
  }
}
}  // namespace

void validate_gemm_arguments(Op op_a, Op op_b, int m, int n, int k, int lda, int ldb, int ldc, int ldd) {
  if (m < 0 || n < 0 || k < 0) {
    throw std::invalid_argument("GEMM sizes must be >= 0, got m = " + std::to_string(m) + ", n = " +
                                std::to_string(n) + ", k = " + std::to_string(k));
  }
  require_ld("lda", lda, op_a == Op::N ? m : k, op_a == Op::N ? "m" : "k", std::string("for op(A) = ") + op_name(op_a));
  require_ld("ldb", ldb, op_b == Op::N ? k : n, op_b == Op::N ? "k" : "n", std::string("for op(B) = ") + op_name(op_b));
  require_ld("ldc", ldc, m, "m", "for C");
  require_ld("ldd", ldd, m, "m", "for D");
}

}  // namespace tc
