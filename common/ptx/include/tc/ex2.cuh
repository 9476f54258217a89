// ex2.approx.ftz.f32: 2^x in one MUFU.EX2, the instruction a softmax spends most of its non-matmul time in.
//
// exp2f(x) compiles to that instruction too, but wrapped: a compare, and a multiply before and after, that keep a
// result in the subnormal range (x below -126) accurate. A softmax's probabilities that small are far below what
// its 16-bit P can hold (bf16's and fp16's smallest normal are 2^-126 and 2^-14), so flushing them to zero changes
// nothing that P V sees; the wrapper drops three of the four instructions each score costs.
// Accuracy: PTX ISA, "ex2": an approximation; common/tests/test_ex2.cu measures its relative error against 2^x in
// double over the normal range. Results: ex2(-inf) = +0, ex2(+inf) = +inf, a result below 2^-126 is +0.
// Preconditions: none (any SM CUDA 13 supports). Errors: none. Source: PTX ISA, "ex2".
#pragma once

namespace tc {

// ex2.approx.ftz.f32: 2^x, subnormal inputs and results flushed to zero.
__device__ inline float ex2_approx_ftz_f32(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

}  // namespace tc
