#include "tc/check.hpp"
#include "tc/cublas_check.hpp"  // the cublasStatus_t overload: the harness's
#include "tc_test/catch.hpp"

TEST_CASE("TC_CHECK passes success through", "[check]") {
  REQUIRE_NOTHROW(TC_CHECK(cudaSuccess));
  REQUIRE_NOTHROW(TC_CHECK(CUBLAS_STATUS_SUCCESS));
}

TEST_CASE("TC_CHECK reports file:line, the expression and the CUDA message on one line", "[check]") {
  const int line = __LINE__ + 1;
  const std::string msg = tc::test::thrown_message<tc::CudaError>([] { TC_CHECK(cudaErrorInvalidValue); });
  CHECK(msg.find("test_check.cpp:" + std::to_string(line)) != std::string::npos);
  CHECK(msg.find("cudaErrorInvalidValue") != std::string::npos);
  CHECK(msg.find("invalid argument") != std::string::npos);
  CHECK(msg.find('\n') == std::string::npos);
}

TEST_CASE("TC_CHECK reports cuBLAS status names", "[check]") {
  const std::string msg = tc::test::thrown_message<tc::CudaError>([] { TC_CHECK(CUBLAS_STATUS_INVALID_VALUE); });
  CHECK(msg.find("CUBLAS_STATUS_INVALID_VALUE") != std::string::npos);
  CHECK(msg.find(": CUBLAS_STATUS_INVALID_VALUE: ") != std::string::npos);  // "file:line: expr: message"
}
