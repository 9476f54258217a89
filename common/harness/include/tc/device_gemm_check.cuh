// The checks of tc/gemm_check.hpp with every step on the GPU: the same two operand sets, the same fp64 references,
// the same comparison and verdict, for problems whose host checks would take far longer than the kernels they check.
//
// Why: chapter 10's suite reaches a 57344 x 8192 weight at 8192 tokens. There the host path (tc/gemm_check.hpp) draws
// 470 million values with one CPU core, widens them to fp64 twice (value, |value|), uploads 3.7 GB per copy and reads
// 3.7 GB of results back, per operand set and per token count: some 45 seconds of checks around an 11 ms kernel.
// Here each step runs where the data already is:
//   - the fill: element i of a stream is a pure function of (seed, i) (hashed_value: the i-th output of the
//     splitmix64 generator), so every thread draws its own elements, and a weight drawn with the same seed is the same
//     matrix at every token count. The values have the distributions of tc/random.hpp (uniform reals in [-1, 1),
//     uniform integers in [-r, r], s8/u8 over their full range), not its values: tc/random.hpp's mt19937_64 stream is
//     sequential by design;
//   - the references: each operand widened to fp64 on the GPU (exact for every input type), then one cuBLAS DGEMM for
//     the value and one on the absolute values for the magnitude, as tc::fp64_reference_gemm does from host arrays;
//   - the comparison: one pass over C that ranks every element by error over bound exactly as tc::compare does
//     (compare_on_device), reduced per block and then across blocks on the host in a fixed order, so the verdict,
//     the worst element and the counts are those of tc::compare and do not vary from run to run;
//   - the statistical bound's inputs: the RMS of the products from the sums of squares along K, and the RMS of the
//     reference from the comparison's own pass.
// Only the verdict's few numbers come back to the host. What the host path offers beyond that (the host copies of the
// operands and of the last output, for tests that mutate a result) is left out.
//
// Shapes and layouts: GemmProblem (cuBLAS's conventions: column-major, op N or T, lda/ldb/ldc in elements). A launch
// callable takes device pointers (const TIn* A, const TIn* B, TOut* C) and computes C = alpha op(A) op(B) + beta C in
// place for the problem it was built for; it may be asynchronous. Everything here is ordered on the legacy default
// stream, the stream of the harness's cuBLAS handles (CublasHandle's default).
// Types: TIn in {__half, __nv_bfloat16, float, double, int8_t, uint8_t}, TOut in {__half, __nv_bfloat16, float, double,
// int32_t}, as tc::fp64_reference_gemm takes them.
// Errors: std::invalid_argument for bad sizes (validate_gemm_arguments) and for K too long to check exactly
// (exact_fill_max); tc::CudaError from CUDA and cuBLAS, out of memory among them. Memory: device_gemm_check_memory.
// Sources: Steele, Lea and Flood, "Fast Splittable Pseudorandom Number Generators", OOPSLA 2014 (splitmix64; its
// constants as in Vigna's reference splitmix64.c); CUDA C++ Programming Guide, "Atomic Functions" (why the
// reductions here avoid them: a floating-point atomic sum's order, and so its last bits, varies from run to run).
#pragma once

#include "tc/check.hpp"
#include "tc/compare.hpp"
#include "tc/cublas_reference.hpp"
#include "tc/device_buffer.hpp"
#include "tc/gemm_check.hpp"
#include "tc/memory.hpp"
#include "tc/types.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tc {

// ---- the fill (host and device, pure) -----------------------------------------------------------------------------

// splitmix64's output function: a bijection of 64-bit words whose every output bit depends on every input bit.
__host__ __device__ constexpr std::uint64_t splitmix64_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// 64 random bits for element i of stream `seed`: the (i + 1)-th output of splitmix64 started from the state
// splitmix64_mix(seed). The state advances by the golden-ratio increment 0x9e3779b97f4a7c15, so any element is one
// multiply-add and one mix away, which is what lets each GPU thread draw its own.
__host__ __device__ constexpr std::uint64_t hashed_bits(std::uint64_t seed, std::uint64_t i) {
  return splitmix64_mix(splitmix64_mix(seed) + (i + 1) * 0x9e3779b97f4a7c15ull);
}

// Element i of stream `seed` as tc/random.hpp's fills distribute it (exactly representable in T):
//   int8_t and int32_t: an integer uniform in [-128, 127]; uint8_t: in [0, 255] (whatever integer_max is);
//   floating T with integer_max > 0: an integer uniform in [-integer_max, integer_max];
//   floating T with integer_max == 0: a real uniform in [-1, 1), from the top 53 bits (every value exact in fp64),
//   then rounded to T by the caller.
// The modulo bias of the integer ranges is below 2^-55. Precondition: 0 <= integer_max <= 256 (tc/random.hpp's).
template <typename T>
__host__ __device__ constexpr double hashed_value(std::uint64_t seed, std::uint64_t i, int integer_max) {
  const std::uint64_t x = hashed_bits(seed, i);
  if constexpr (std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::int32_t>) {
    return double(std::int64_t(x % 256) - 128);
  } else if constexpr (std::is_same_v<T, std::uint8_t>) {
    return double(x % 256);
  } else {
    if (integer_max > 0) return double(std::int64_t(x % std::uint64_t(2 * integer_max + 1)) - integer_max);
    return 2.0 * (double(x >> 11) * 0x1p-53) - 1.0;
  }
}

namespace detail {

// T's value as a double on either side (every type here widens exactly), and a double rounded to the nearest T.
template <typename T>
__host__ __device__ double widen_to_double(T x) {
  if constexpr (std::is_same_v<T, __half>) return double(__half2float(x));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return double(__bfloat162float(x));
  else return double(x);
}
template <typename T>
__host__ __device__ T narrow_from_double(double x) {
  if constexpr (std::is_same_v<T, __half>) return __double2half(x);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __double2bfloat16(x);
  else return T(x);
}

// Grid-stride launches of the element-wise kernels: enough blocks of 256 threads to fill any SM 9.0 GPU several
// times over, no more (each thread then loops), and at least one.
inline unsigned elementwise_blocks(std::size_t count) {
  const std::size_t blocks = (count + 255) / 256;
  return unsigned(blocks < 4096 ? (blocks > 0 ? blocks : 1) : 4096);
}

}  // namespace detail

// data[i] = hashed_value<T>(seed, i, integer_max), rounded to T, for i < count. Launch: grid-stride, any grid.
template <typename T>
__global__ void hashed_fill_kernel(T* data, std::size_t count, std::uint64_t seed, int integer_max) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x)
    data[i] = detail::narrow_from_double<T>(hashed_value<T>(seed, i, integer_max));
}

// Fills count elements of device memory with stream `seed` (hashed_value; integer_max 0: reals in [-1, 1)),
// asynchronously on the legacy default stream. Errors: std::invalid_argument for integer_max outside [0, 256];
// tc::CudaError from the launch.
template <typename T>
void fill_hashed(T* data, std::size_t count, std::uint64_t seed, int integer_max) {
  if (integer_max < 0 || integer_max > 256)
    throw std::invalid_argument("fill_hashed: integer_max must be in [0, 256], got " + std::to_string(integer_max));
  if (count == 0) return;
  hashed_fill_kernel<T><<<detail::elementwise_blocks(count), 256>>>(data, count, seed, integer_max);
  check_launch();
}

// ---- the fp64 reference on the device -------------------------------------------------------------------------

// out[i] = x[i] (absolute: |x[i]|) as a double, for i < count. Launch: grid-stride, any grid.
template <typename T>
__global__ void widen_kernel(const T* x, double* out, std::size_t count, bool absolute) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const double v = detail::widen_to_double(x[i]);
    out[i] = absolute ? fabs(v) : v;
  }
}

// A reference on the device: value and magnitude (tc/compare.hpp's mag), m x n column-major with ld = max(1, m).
struct DeviceGemmReference {
  DeviceBuffer<double> value, magnitude;
  int ld = 1;
};

// The fp64 reference of p on device operands A, B (and C where beta != 0; it may be null otherwise): what
// tc::fp64_reference_gemm computes from host arrays, widened on the GPU instead of the host. Device memory beyond the
// result: A, B and C as doubles while it runs. Errors: those of cublas_gemm; tc::CudaError.
template <typename TIn, typename TOut>
DeviceGemmReference device_reference_fp64(const CublasHandle& cublas, const GemmProblem& p, const TIn* A,
                                          const TIn* B, const TOut* C) {
  validate_gemm_arguments(p.op_a, p.op_b, p.m, p.n, p.k, p.lda, p.ldb, p.ldc, p.ldc);
  DeviceGemmReference r;
  r.ld = p.m > 1 ? p.m : 1;
  const std::size_t out = std::size_t(r.ld) * p.n;
  r.value = DeviceBuffer<double>(out);
  r.magnitude = DeviceBuffer<double>(out);
  const bool has_c = p.beta != 0.0 && C != nullptr;
  DeviceBuffer<double> a(p.a_elements()), b(p.b_elements()), c(has_c ? p.c_elements() : 0);
  for (const bool absolute : {false, true}) {
    auto widen = [&](auto* from, DeviceBuffer<double>& to) {
      if (to.size() == 0) return;
      widen_kernel<<<detail::elementwise_blocks(to.size()), 256>>>(from, to.data(), to.size(), absolute);
      check_launch();
    };
    widen(A, a);
    widen(B, b);
    if (has_c) widen(C, c);
    DeviceBuffer<double>& d = absolute ? r.magnitude : r.value;
    d.poison();  // an element DGEMM did not write is then NaN, and fails every comparison
    cublas_gemm<double, double>(cublas, p.op_a, p.op_b, p.m, p.n, p.k, absolute ? std::fabs(p.alpha) : p.alpha,
                                a.data(), p.lda, b.data(), p.ldb, has_c ? (absolute ? std::fabs(p.beta) : p.beta) : 0.0,
                                has_c ? c.data() : nullptr, p.ldc, d.data(), r.ld);
  }
  TC_CHECK(cudaDeviceSynchronize());  // the scratch copies are freed on return; DGEMM must be done with them
  return r;
}

// ---- the comparison on the device -------------------------------------------------------------------------------

// What one block (then the whole grid) found: tc::compare's fields, before the host turns them into a CompareResult.
struct ComparePartial {
  long long checked = 0, failures = 0;
  double squares = 0.0;            // sum of |got - ref|^2 (NaN where any is)
  double reference_squares = 0.0;  // sum of ref^2, for the statistical bound's RMS(ref)
  double largest_bound = 0.0;
  double worst_ratio = -1.0;  // error over bound of the worst element; -1: none seen
  long long worst_index = -1;  // its column-major index i + j m
  double worst_got = 0.0, worst_ref = 0.0, worst_error = 0.0, worst_bound = 0.0;
};

// Merges b into a: sums add, the largest bound is kept, and the worst element is the higher ratio, the lower index
// on a tie, which is tc::compare's choice (the first of the worst in column-major order).
__host__ __device__ inline void merge_partials(ComparePartial& a, const ComparePartial& b) {
  a.checked += b.checked;
  a.failures += b.failures;
  a.squares += b.squares;
  a.reference_squares += b.reference_squares;
  if (b.largest_bound > a.largest_bound) a.largest_bound = b.largest_bound;
  if (b.worst_index >= 0 &&
      (a.worst_index < 0 || b.worst_ratio > a.worst_ratio ||
       (b.worst_ratio == a.worst_ratio && b.worst_index < a.worst_index))) {
    a.worst_ratio = b.worst_ratio;
    a.worst_index = b.worst_index;
    a.worst_got = b.worst_got;
    a.worst_ref = b.worst_ref;
    a.worst_error = b.worst_error;
    a.worst_bound = b.worst_bound;
  }
}

// One element as tc::compare judges it (the bound, the ratio that ranks it, NaN a failure), merged into `into`.
__device__ inline void judge(ComparePartial& into, long long index, double g, double want, double scale, int k,
                             const Tolerance& tol) {
  const double bound = (k * tol.u_acc + tol.u_mag) * scale + tol.u_out * fabs(want);
  const double error = fabs(g - want);
  const bool nan = isnan(g);
  ++into.checked;
  into.squares += error * error;
  into.reference_squares += want * want;
  if (bound > into.largest_bound) into.largest_bound = bound;
  if (nan || !(error <= bound)) ++into.failures;
  double ratio = bound > 0.0 ? error / bound : (error > 0.0 ? INFINITY : 0.0);
  if (nan) ratio = INFINITY;
  if (ratio > into.worst_ratio) {  // indices rise within a thread, so the first of equal ratios stays
    into.worst_ratio = ratio;
    into.worst_index = index;
    into.worst_got = g;
    into.worst_ref = want;
    into.worst_error = error;
    into.worst_bound = bound;
  }
}

// Each block judges a grid-stride share of the m x n elements (column-major index e = i + j m) and writes its merged
// ComparePartial to partials[blockIdx.x]. Launch: kCompareThreads threads a block, any grid.
inline constexpr int kCompareThreads = 256;
template <typename T>
__global__ void __launch_bounds__(kCompareThreads)
    compare_kernel(int m, int n, int k, const T* got, int ld_got, const double* ref, const double* mag, int ld_ref,
                   Tolerance tol, ComparePartial* partials) {
  // Raw storage: a __shared__ array may not run ComparePartial's member initializers; each thread writes its own.
  __shared__ alignas(ComparePartial) unsigned char storage[sizeof(ComparePartial) * kCompareThreads];
  ComparePartial* block = reinterpret_cast<ComparePartial*>(storage);
  ComparePartial mine;
  const long long count = (long long)m * n;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < count;
       e += (long long)gridDim.x * blockDim.x) {
    const long long i = e % m, j = e / m;
    judge(mine, e, detail::widen_to_double(got[i + j * ld_got]), ref[i + j * ld_ref], mag[i + j * ld_ref], k, tol);
  }
  block[threadIdx.x] = mine;
  __syncthreads();  // every thread's partial is in shared memory before the tree reads its neighbours'
  for (int half = kCompareThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) merge_partials(block[threadIdx.x], block[threadIdx.x + half]);
    __syncthreads();  // this level's merges land before the next level reads them
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = block[0];
}

// The whole grid's partial: the blocks' merged on the host in block order, so the result does not vary run to run.
template <typename T>
ComparePartial compare_partial_on_device(int m, int n, int k, const T* got, int ld_got, const double* ref,
                                         const double* mag, int ld_ref, Tolerance tol) {
  ComparePartial all;
  const std::size_t count = std::size_t(m) * std::size_t(n);
  if (count == 0) return all;
  const unsigned blocks = detail::elementwise_blocks(count) < 1024 ? detail::elementwise_blocks(count) : 1024;
  DeviceBuffer<ComparePartial> partials(blocks);
  compare_kernel<T><<<blocks, kCompareThreads>>>(m, n, k, got, ld_got, ref, mag, ld_ref, tol, partials.data());
  check_launch();
  for (const ComparePartial& p : partials.download()) merge_partials(all, p);
  return all;
}

// The merged partials of an m-row comparison as tc::compare reports it.
inline CompareResult to_compare_result(const ComparePartial& all, int m) {
  CompareResult r;
  r.checked = all.checked;
  r.failures = all.failures;
  r.passed = all.failures == 0;
  r.largest_bound = all.largest_bound;
  if (all.worst_index >= 0) {
    r.worst_row = int(all.worst_index % m);
    r.worst_col = int(all.worst_index / m);
    r.worst_got = all.worst_got;
    r.worst_ref = all.worst_ref;
    r.worst_error = all.worst_error;
    r.worst_bound = all.worst_bound;
  }
  r.rms_error = all.checked > 0 ? std::sqrt(all.squares / double(all.checked)) : 0.0;
  return r;
}

// tc::compare on device arrays: got (m x n, ld_got) against ref and mag (m x n, ld_ref), under tol. Same fields, same
// verdict, same worst element; rms_error may differ from the host's in its last bits (another summation order).
// Errors: tc::CudaError.
template <typename T>
CompareResult compare_on_device(int m, int n, int k, const T* got, int ld_got, const double* ref, const double* mag,
                                int ld_ref, Tolerance tol) {
  return to_compare_result(compare_partial_on_device(m, n, k, got, ld_got, ref, mag, ld_ref, tol), m);
}

// ---- the statistical bound's RMS of products on the device ------------------------------------------------------

// Sums of squares along K of one operand, deterministic: chunk c of the `rows` (i of op(A), j of op(B)) for element
// l of K is summed into partial[c * k + l]; launch: grid (ceil(k / 256), chunks), 256 threads. Element (l, r) is at
// x[l * stride_l + r * stride_r]. Coalesced where stride_l = 1, as for the K-contiguous operands of chapter 10.
template <typename T>
__global__ void squares_along_k_kernel(const T* x, int k, int rows, long long stride_l, long long stride_r,
                                       double* partial) {
  const int l = blockIdx.x * blockDim.x + threadIdx.x;
  if (l >= k) return;
  const int per_chunk = (rows + gridDim.y - 1) / gridDim.y;
  const int begin = blockIdx.y * per_chunk;
  const int end = begin + per_chunk < rows ? begin + per_chunk : rows;
  double sum = 0.0;
  for (int r = begin; r < end; ++r) {
    const double v = detail::widen_to_double(x[l * stride_l + (long long)r * stride_r]);
    sum += v * v;
  }
  partial[(long long)blockIdx.y * k + l] = sum;
}

// sum over the rows of x(l, r)^2 for each l < k, as host doubles (chunks added in order).
template <typename T>
std::vector<double> squares_along_k(const T* x, int k, int rows, long long stride_l, long long stride_r) {
  std::vector<double> sums(std::size_t(k), 0.0);
  if (k == 0 || rows == 0) return sums;
  constexpr int kChunks = 64;  // 64 x ceil(k / 256) blocks: enough to fill the GPU at K = 4096
  DeviceBuffer<double> partial(std::size_t(kChunks) * k);
  squares_along_k_kernel<T><<<dim3((k + 255) / 256, kChunks), 256>>>(x, k, rows, stride_l, stride_r, partial.data());
  check_launch();
  const std::vector<double> host = partial.download();
  for (int c = 0; c < kChunks; ++c)
    for (int l = 0; l < k; ++l) sums[l] += host[std::size_t(c) * k + l];
  return sums;
}

// tc::rms_of_products on device operands (same layouts): sqrt(sum_l (sum_i a_il^2)(sum_j b_lj^2) / (m n k)).
template <typename TIn>
double rms_of_products_on_device(const GemmProblem& p, const TIn* A, const TIn* B) {
  if (p.k == 0 || p.m == 0 || p.n == 0) return 0.0;
  // op(A)_il: A[i + l lda] (op N) or A[l + i lda] (op T); op(B)_lj: B[l + j ldb] (op N) or B[j + l ldb] (op T).
  const std::vector<double> sa = p.op_a == Op::N ? squares_along_k(A, p.k, p.m, p.lda, 1)
                                                 : squares_along_k(A, p.k, p.m, 1, p.lda);
  const std::vector<double> sb = p.op_b == Op::N ? squares_along_k(B, p.k, p.n, 1, p.ldb)
                                                 : squares_along_k(B, p.k, p.n, p.ldb, 1);
  double sum = 0.0;
  for (int l = 0; l < p.k; ++l) sum += sa[l] * sb[l];
  return std::sqrt(sum / (double(p.m) * p.n * p.k));
}

// ---- the two checks, made on the device ---------------------------------------------------------------------------

namespace detail {

// One operand set on the device: A, B and the input C (where beta != 0) drawn from streams seed, seed + 1, seed + 2
// (integer_max as hashed_value takes it), the output C, and their fp64 reference.
template <typename TIn, typename TOut>
class DeviceOperandSet {
 public:
  DeviceOperandSet(const CublasHandle& cublas, const GemmProblem& p, std::uint64_t seed, int integer_max) : p_(p) {
    validate_gemm_arguments(p.op_a, p.op_b, p.m, p.n, p.k, p.lda, p.ldb, p.ldc, p.ldc);
    a_ = DeviceBuffer<TIn>(p.a_elements());
    b_ = DeviceBuffer<TIn>(p.b_elements());
    c_ = DeviceBuffer<TOut>(p.c_elements());
    fill_hashed(a_.data(), a_.size(), seed, integer_max);
    fill_hashed(b_.data(), b_.size(), seed + 1, integer_max);
    if (p.beta != 0.0) {
      c_input_ = DeviceBuffer<TOut>(p.c_elements());
      fill_hashed(c_input_.data(), c_input_.size(), seed + 2, integer_max);
    }
    reference_ = device_reference_fp64<TIn, TOut>(cublas, p, a_.data(), b_.data(), c_input_.data());
  }

  // C as a run must find it: the input C where beta != 0, else poison (NaN), so that an unwritten element fails.
  void reset_c() {
    if (p_.beta != 0.0) {
      TC_CHECK(cudaMemcpy(c_.data(), c_input_.data(), c_.bytes(), cudaMemcpyDeviceToDevice));
    } else {
      c_.poison();
    }
  }
  // Runs launch(A, B, C) from reset_c()'s C, waits for it, and compares under tol.
  template <typename Launch>
  ComparePartial run(Launch&& launch, Tolerance tol) {
    reset_c();
    launch(a_.data(), b_.data(), c_.data());
    check_launch();
    TC_CHECK(cudaDeviceSynchronize());  // an error inside the kernel surfaces here, with this call site
    return compare_partial_on_device(p_.m, p_.n, p_.k, c_.data(), p_.ldc, reference_.value.data(),
                                     reference_.magnitude.data(), reference_.ld, tol);
  }

  const GemmProblem& problem() const { return p_; }
  const TIn* a() const { return a_.data(); }
  const TIn* b() const { return b_.data(); }
  TOut* c() { return c_.data(); }
  const TOut* c() const { return c_.data(); }
  const DeviceGemmReference& reference() const { return reference_; }

 private:
  GemmProblem p_;
  DeviceBuffer<TIn> a_, b_;
  DeviceBuffer<TOut> c_input_, c_;
  DeviceGemmReference reference_;
};

}  // namespace detail

// tc::ExactCheck made on the device: integer operands in [-r, r] (r = exact_fill_max<TOut>(k); s8/u8 full range)
// drawn with `seed`, their exact fp64 reference, and run(), which compares a kernel's result with it exactly as
// ExactCheck::run does (Tolerance::exact_operands; integer outputs exact).
template <typename TIn, typename TOut>
class DeviceExactCheck {
 public:
  DeviceExactCheck(const CublasHandle& cublas, const GemmProblem& p, std::uint64_t seed)
      : fill_max_(ElementTraits<TOut>::is_integer ? 0 : exact_fill_max<TOut>(p.k)), set_(cublas, p, seed, fill_max_) {}

  template <typename Launch>
  CompareResult run(Launch&& launch) {
    const Tolerance tol = ElementTraits<TOut>::is_integer ? Tolerance::exact() : Tolerance::exact_operands<TOut>();
    return to_compare_result(set_.run(std::forward<Launch>(launch), tol), set_.problem().m);
  }
  const GemmProblem& problem() const { return set_.problem(); }
  // As ExactCheck::operand_range: "[-r, r]", or "full <type>" for integer inputs.
  std::string operand_range() const {
    return fill_max_ == 0 ? std::string("full ") + ElementTraits<TIn>::name
                          : "[-" + std::to_string(fill_max_) + ", " + std::to_string(fill_max_) + "]";
  }
  const TIn* a() const { return set_.a(); }
  const TIn* b() const { return set_.b(); }
  const TOut* last_output() const { return set_.c(); }  // device, all of C's storage (ldc x n)

 private:
  int fill_max_;
  detail::DeviceOperandSet<TIn, TOut> set_;
};

// tc::RandomOperands made on the device: operands uniform in [-1, 1) (s8/u8 full range) drawn with `seed`, their fp64
// reference and the statistical bound's inputs; check() compares as RandomOperands::check does (the K-scaled bound
// of random_operand_tolerance, and for floating outputs the RMS error within statistical_rms_bound). a(), b(), c()
// and reset_c() serve the timings, as RandomOperands'.
template <typename TIn, typename TOut>
class DeviceRandomOperands {
 public:
  DeviceRandomOperands(const CublasHandle& cublas, const GemmProblem& p, std::uint64_t seed)
      : set_(cublas, p, seed, 0) {
    const Tolerance tol = random_operand_tolerance<TOut>();
    statistics_ = {p.k, p.alpha, ElementTraits<TIn>::unit_roundoff, tol.u_acc, tol.u_out, 0x1p-53,
                   rms_of_products_on_device(p, set_.a(), set_.b()), 0.0};
  }

  template <typename Launch>
  CompareResult check(Launch&& launch) {
    const ComparePartial all = set_.run(std::forward<Launch>(launch), random_operand_tolerance<TOut>());
    CompareResult r = to_compare_result(all, set_.problem().m);
    if constexpr (!ElementTraits<TOut>::is_integer) {
      statistics_.rms_reference = all.checked > 0 ? std::sqrt(all.reference_squares / double(all.checked)) : 0.0;
      r.rms_bound = statistical_rms_bound(statistics_);
      r.passed = r.passed && r.rms_error <= r.rms_bound;  // a NaN rms_error fails too
    }
    return r;
  }
  // The statistical bound's inputs; rms_reference is filled by the first check().
  const StatisticalInputs& statistics() const { return statistics_; }

  const TIn* a() const { return set_.a(); }
  const TIn* b() const { return set_.b(); }
  TOut* c() { return set_.c(); }
  void reset_c() { set_.reset_c(); }
  const GemmProblem& problem() const { return set_.problem(); }
  const DeviceGemmReference& reference() const { return set_.reference(); }

 private:
  detail::DeviceOperandSet<TIn, TOut> set_;
  StatisticalInputs statistics_;
};

// Both checks of one kernel on one problem, with the device-made operand sets: tc::check_gemm's verdict.
template <typename TIn, typename TOut, typename Launch>
GemmVerdict check_gemm(DeviceExactCheck<TIn, TOut>& exact, DeviceRandomOperands<TIn, TOut>& random, Launch&& launch) {
  GemmVerdict v;
  v.exact = exact.run(launch);
  v.random = random.check(launch);
  v.exact_range = exact.operand_range();
  return v;
}

// What a DeviceExactCheck and a DeviceRandomOperands of p hold on the device while both live, at the peak (the second
// one's reference): per set A, B, the input C (beta != 0) and the output C, and the reference's value and magnitude
// (m x n doubles each); while a reference is made, A, B and C widened to doubles. The host keeps nothing of size.
// Errors: tc::TooLargeError if a count overflows 64 bits.
template <typename TIn, typename TOut>
MemoryNeed device_gemm_check_memory(const GemmProblem& p) {
  const std::uint64_t a = checked_bytes(p.a_elements(), sizeof(TIn));
  const std::uint64_t b = checked_bytes(p.b_elements(), sizeof(TIn));
  const std::uint64_t c = checked_bytes(p.c_elements(), sizeof(TOut));
  const std::uint64_t c_input = p.beta != 0.0 ? c : 0;
  const std::uint64_t reference = checked_bytes(checked_bytes(std::uint64_t(p.m > 1 ? p.m : 1), std::uint64_t(p.n)),
                                                2 * sizeof(double));
  const std::uint64_t set = checked_sum({a, b, c, c_input, reference});
  const std::uint64_t widened =
      checked_sum({checked_bytes(p.a_elements(), sizeof(double)), checked_bytes(p.b_elements(), sizeof(double)),
                   p.beta != 0.0 ? checked_bytes(p.c_elements(), sizeof(double)) : 0});
  return MemoryNeed{0, checked_sum({set, set, widened})};
}

}  // namespace tc
