// Chapter 11's tests. Host: the problem's rules and counts, the benchmark's problems and their same-work twins, the
// no-overlap bound, the mask, the accumulator-to-A identity. GPU (SM 9.0): the ceilings under the GPU's peaks;
// every step against the fp32 reference on every head_dim, causal and not, GQA, varlen, ragged lengths; and the
// planted bugs, which the check must catch.
#include "bench.hpp"
#include "ceilings.cuh"
#include "cudnn_sdpa.hpp"
#include "run.cuh"

#include "tools/figures.hpp"

#include "tc/layout_maps.hpp"
#include "tc/memory.hpp"
#include "tc/layouts/wgmma.hpp"
#include "tc_test/catch.hpp"
#include "tc_test/planted_bugs.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace {

using attention::Shape;

Shape shape(int batch, int seqlen, int heads, int kv_heads, int head_dim, bool causal) {
  Shape s;
  s.batch = batch;
  s.seqlen_q = s.seqlen_k = seqlen;
  s.heads = heads;
  s.kv_heads = kv_heads;
  s.head_dim = head_dim;
  s.causal = causal;
  return s;
}

// A varlen batch of these sequence lengths.
Shape varlen(const std::vector<int>& lengths, int heads, int kv_heads, int head_dim, bool causal) {
  Shape s = shape(int(lengths.size()), 0, heads, kv_heads, head_dim, causal);
  s.cu_seqlens = {0};
  for (int n : lengths) {
    s.cu_seqlens.push_back(s.cu_seqlens.back() + n);
    s.seqlen_q = s.seqlen_k = std::max(s.seqlen_q, n);
  }
  return s;
}

std::string describe(const Shape& s) {
  return "batch " + std::to_string(s.batch) + ", seqlen " + std::to_string(s.seqlen_q) + " x " +
         std::to_string(s.seqlen_k) + ", heads " + std::to_string(s.heads) + "/" + std::to_string(s.kv_heads) +
         ", head_dim " + std::to_string(s.head_dim) + (s.causal ? ", causal" : "") +
         (s.cu_seqlens.empty() ? "" : ", varlen");
}

// Step `step`'s launcher, as run_and_check takes it.
template <typename T>
auto launcher(int step) {
  return [step](const Shape& sh, const attention::DeviceTensors<T>& t, cudaStream_t st) {
    if (step == 1) attention::launch_step1(sh, t, st);
    if (step == 2) attention::launch_step2(sh, t, st);
    if (step == 3) attention::launch_step3(sh, t, st);
    if (step == 4) attention::launch_step4(sh, t, st);
    if (step == 5) attention::launch_step5(sh, t, st);
  };
}
constexpr int kSteps[] = {1, 2, 3, 4, 5};

template <typename T>
attention::CheckResult check_step(int step, const Shape& s, std::uint64_t seed = 11) {
  attention::Problem<T> p = attention::make_problem<T>(s, seed);
  return attention::run_and_check(p, launcher<T>(step));
}

}  // namespace

TEST_CASE("an attention problem breaks each rule with one line", "[host]") {
  CHECK_FALSE(attention::shape_problem(shape(2, 100, 32, 8, 128, true)));
  CHECK(attention::shape_problem(shape(1, 100, 6, 4, 128, false)).value().find("multiple of kv_heads") !=
        std::string::npos);
  CHECK(attention::shape_problem(shape(1, 100, 4, 4, 96, false)).value().find("head_dim 96") != std::string::npos);
  CHECK(attention::shape_problem(shape(1, 0, 4, 4, 64, false)).value().find("at least 1") != std::string::npos);
  Shape bad = varlen({3, 5}, 4, 4, 64, false);
  bad.cu_seqlens = {0, 5, 5};
  CHECK(attention::shape_problem(bad).value().find("must increase") != std::string::npos);
  bad.cu_seqlens = {1, 3, 8};
  CHECK(attention::shape_problem(bad).value().find("start at 0") != std::string::npos);
  bad.cu_seqlens = {0, 3};
  CHECK(attention::shape_problem(bad).value().find("batch + 1") != std::string::npos);
  CHECK(attention::shape_problem(shape(1, 1 << 20, 64, 8, 256, false)).value().find("2^31") != std::string::npos);
  for (const auto& why : {attention::shape_problem(shape(1, 100, 6, 4, 128, false)),
                          attention::shape_problem(shape(1, 1 << 20, 64, 8, 256, false))})
    CHECK(why.value().find('\n') == std::string::npos);
}

TEST_CASE("the memory a problem needs is counted before anything is allocated, on the host and on the GPU", "[host]") {
  attention::Shape s;
  s.batch = 2;
  s.seqlen_q = s.seqlen_k = 1000;
  s.heads = 8;
  s.kv_heads = 2;
  s.head_dim = 128;
  // Q and O: 2 x 1000 x 8 x 128 elements; K and V: 2 x 1000 x 2 x 128; L: 2 x 1000 x 8 rows.
  const std::uint64_t q = 2048000, kv = 512000, rows = 16000;
  const tc::MemoryNeed need = attention::memory_need(s, 2);
  CHECK(need.device_bytes == (2 * q + 2 * kv) * 2 + q * 4 + rows * 8);
  CHECK(need.host_bytes == std::max((q + 2 * kv) * 2, q * 10 + rows * 8));  // the check's downloads, here
  s.cu_seqlens = {0, 600, 2000};  // varlen: 2000 tokens in all, and three offsets on the GPU
  CHECK(attention::memory_need(s, 2).device_bytes == need.device_bytes + 3 * 4);
}

TEST_CASE("FLOPs are counted as FlashAttention counts them, halved for causal", "[host]") {
  CHECK(attention::flops(shape(2, 1024, 16, 16, 128, false)) == 4.0 * 1024 * 1024 * 128 * 16 * 2);
  CHECK(attention::flops(shape(2, 1024, 16, 16, 128, true)) == 2.0 * 1024 * 1024 * 128 * 16 * 2);
  CHECK(attention::flops(varlen({3, 5}, 2, 1, 64, false)) == 4.0 * (9 + 25) * 64 * 2);
}

TEST_CASE("every benchmark problem is valid, and the suite is FlashAttention-3's: 16k tokens, a hidden size of 2048",
          "[host]") {
  const std::vector<attention::BenchProblem> suite = attention::bench_suite(), held_out = attention::bench_held_out();
  CHECK(suite.size() == 36);  // 3 head_dims x causal or not x 6 seqlens
  for (const attention::BenchProblem& p : suite) {
    INFO(p.name << ": batch " << p.shape.batch << ", seqlen " << p.shape.seqlen_q << ", d " << p.shape.head_dim);
    CHECK(p.set == "suite");
    CHECK(p.shape.batch * p.shape.seqlen_q == 16384);
    CHECK(p.shape.heads * p.shape.head_dim == 2048);
    CHECK_FALSE(attention::shape_problem(p.shape).has_value());
  }
  CHECK(held_out.size() >= 6);
  for (const attention::BenchProblem& p : held_out) {
    INFO(p.name);
    CHECK(p.set == "held-out");
    CHECK_FALSE(attention::shape_problem(p.shape).has_value());
    for (const attention::BenchProblem& q : suite) {  // held out: no shape of the suite again
      const bool same = p.shape.batch == q.shape.batch && p.shape.seqlen_q == q.shape.seqlen_q &&
                        p.shape.seqlen_k == q.shape.seqlen_k && p.shape.heads == q.shape.heads &&
                        p.shape.kv_heads == q.shape.kv_heads && p.shape.head_dim == q.shape.head_dim &&
                        p.shape.causal == q.shape.causal && p.shape.cu_seqlens.empty();
      CHECK_FALSE(same);
    }
  }
}

TEST_CASE("the same work without GQA and varlen has as many KV heads as heads, fixed lengths and the same FLOPs",
          "[host]") {
  CHECK_FALSE(attention::same_work_without_gqa_or_varlen(shape(2, 1024, 16, 16, 128, true)).has_value());
  const std::optional<attention::Shape> mha =
      attention::same_work_without_gqa_or_varlen(shape(4, 2048, 32, 8, 128, true));
  REQUIRE(mha.has_value());
  CHECK(mha->kv_heads == 32);
  CHECK(mha->seqlen_q == 2048);
  CHECK(attention::flops(*mha) == attention::flops(shape(4, 2048, 32, 8, 128, true)));
  int with_twin = 0;
  for (const attention::BenchProblem& p : attention::bench_held_out()) {
    INFO(p.name);
    const std::optional<attention::Shape> t = attention::same_work_without_gqa_or_varlen(p.shape);
    if (!t) continue;
    ++with_twin;
    CHECK(t->kv_heads == t->heads);
    CHECK(t->cu_seqlens.empty());
    CHECK_FALSE(attention::shape_problem(*t).has_value());
    // The root mean square length: the FLOPs to within its rounding (a part in a thousand here).
    CHECK(std::abs(attention::flops(*t) / attention::flops(p.shape) - 1.0) < 1e-3);
  }
  CHECK(with_twin == 5);  // the three GQA problems, the chunk (GQA too), and the varlen serving mix
}

TEST_CASE("with no overlap, the exponentials and the matmuls bound attention at one over the sum of their times",
          "[host]") {
  // A pair at head_dim 128: 512 FLOPs at 1024 TFLOP/s (0.5 ps) and one exponential at 2e12 a second (0.5 ps): 1 ps,
  // so 512 TFLOP/s, half the tensor cores' rate.
  CHECK(attention::no_overlap_bound(1024.0, 2e12, 128) == Approx(512.0));
  // At head_dim 64 the same exponential weighs twice as much against half the FLOPs: 256 / (0.25 + 0.5) ps.
  CHECK(attention::no_overlap_bound(1024.0, 2e12, 64) == Approx(256.0 / 0.75));
}

// [serial]: it times the GPU, which another test's kernels at once would slow below the floor it checks.
TEST_CASE("the ceilings are under the GPU's peaks: the wgmma mix's kernel keeps every wgmma it issues",
          "[gpu][serial]") {
  tc::test::require_exact_gpu(90);
  // A ceiling kernel whose S nothing read lost three tiles' S of four to ptxas and measured above the peak.
  const attention::Ceilings c = attention::measure_ceilings<__nv_bfloat16>(2, 5);
  for (int d : {64, 128, 256}) {
    INFO("head_dim " << d << ": " << c.wgmma(d) << " TFLOP/s against a peak of " << c.tensor_peak_tflops);
    CHECK(c.wgmma(d) <= c.tensor_peak_tflops);
    CHECK(c.wgmma(d) >= 0.5 * c.tensor_peak_tflops);  // and it times the tensor cores, not a launch
  }
  INFO("ex2: " << c.ex2_per_s << " a second against a peak of " << c.ex2_peak_per_s);
  CHECK(c.ex2_per_s <= c.ex2_peak_per_s);
  CHECK(c.ex2_per_s >= 0.5 * c.ex2_peak_per_s);
  CHECK(c.within_peaks());
}

TEST_CASE("the causal mask is aligned to the bottom right, and a GQA group reads one KV head", "[host]") {
  CHECK(attention::causal_visible(0, 0, 8, 8));
  CHECK_FALSE(attention::causal_visible(0, 1, 8, 8));
  CHECK(attention::causal_visible(7, 7, 8, 8));
  CHECK(attention::causal_visible(0, 4, 4, 8));       // more keys than queries: row 0 sees keys 0..4
  CHECK_FALSE(attention::causal_visible(0, 0, 8, 4));  // more queries than keys: rows 0..3 see none
  CHECK(attention::causal_visible(4, 0, 8, 4));
  CHECK(attention::kv_head_of(31, 32, 8) == 7);
  CHECK(attention::kv_head_of(3, 32, 8) == 0);
  static_assert(tc::wgmma_accumulator_is_next_a());
  CHECK(tc::wgmma_accumulator_is_next_a());  // why P feeds P V from S's registers (tile_math.cuh)
}

TEST_CASE("S's accumulator registers are P's A operand, slot for slot, and the chapter's figures are current",
          "[host]") {
  for (int warp = 0; warp < 4; ++warp)
    for (int n : {16, 64, 128, 256}) {
      const tc::LaneMap d = tc::wgmma_d_map(n, warp), a = tc::wgmma_a_registers_map(n / 16, warp);
      int differ = 0;
      for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < n / 2; ++i)
          differ += d.at(lane, i).row != a.at(lane, i).row || d.at(lane, i).col != a.at(lane, i).col;
      INFO("warp " << warp << ", n " << n);
      CHECK(differ == 0);
    }
  tc::test::check_committed_figures(chapter_figures(), TC_FIGURES_DIR,
                                    "build/<preset>/11_flash_attention/11_figures --out docs/figures");
}

TEST_CASE("every step matches the reference on every head_dim, causal and not, at lengths not a multiple of a tile",
          "[gpu]") {
  tc::test::require_exact_gpu(90);
  for (int step : kSteps)
    for (int d : {64, 128, 256})
      for (bool causal : {false, true})
        for (int seqlen : {1, 77, 130, 512, 2100}) {  // 2100: step 5's longer tiles (step5_long_tile)
          const Shape s = shape(2, seqlen, 3, 3, d, causal);
          const attention::CheckResult r = check_step<__nv_bfloat16>(step, s);
          INFO("step " << step << ", " << describe(s) << ": O off " << r.o_off << " (worst " << r.o_worst
                       << " of its bound), L off " << r.l_off);
          CHECK(r.pass());
        }
}

TEST_CASE("every step matches the reference in fp16, with GQA, with more queries than keys and with fewer",
          "[gpu]") {
  tc::test::require_exact_gpu(90);
  std::vector<Shape> shapes = {shape(1, 300, 4, 4, 128, true), shape(2, 200, 8, 2, 128, false),
                               shape(1, 129, 32, 8, 64, true)};
  Shape more_queries = shape(1, 100, 2, 1, 128, true);
  more_queries.seqlen_k = 40;  // rows 0..59 see no key: O = 0, L = -inf
  shapes.push_back(more_queries);
  // A chunk of a prefill against its longer context, at head_dim 64 with a causal mask: past step 1's small blocks
  // (2k keys) and short of FlashAttention-3's tile (2k queries), the one problem where step 5 runs steps 2-4's tile
  // at head_dim 64 (step5_long_tile).
  Shape chunk = shape(1, 1000, 4, 2, 64, true);
  chunk.seqlen_k = 3000;
  REQUIRE_FALSE(attention::step5_small_block(chunk));
  REQUIRE_FALSE(attention::step5_long_tile(chunk));
  shapes.push_back(chunk);
  for (int step : kSteps)
    for (const Shape& s : shapes) {
      const attention::CheckResult r16 = check_step<__half>(step, s), rb = check_step<__nv_bfloat16>(step, s);
      INFO("step " << step << ", " << describe(s) << ": fp16 O off " << r16.o_off << ", bf16 O off " << rb.o_off);
      CHECK(r16.pass());
      CHECK(rb.pass());
    }
}

TEST_CASE("every step matches the reference on a varlen batch of lengths 1, 17, 127, 128, 129 and 4097", "[gpu]") {
  tc::test::require_exact_gpu(90);
  for (int step : kSteps)
    for (int d : {64, 128, 256})  // step 5's row blocks and key tiles differ by head_dim (Step5Shape)
      for (bool causal : {false, true}) {
        const Shape s = varlen({1, 17, 127, 128, 129, 4097}, 4, 2, d, causal);
        const attention::CheckResult r = check_step<__nv_bfloat16>(step, s);
        INFO("step " << step << ", " << describe(s) << ": O off " << r.o_off << ", L off " << r.l_off);
        CHECK(r.pass());
      }
}

TEST_CASE("every step matches the reference on scores that rise each key tile, past step 5's rescale slack",
          "[gpu]") {
  tc::test::require_exact_gpu(90);
  // Uniform random scores rarely move a row's max after its first tile, and step 5 (head_dim 128 and 256) leaves the
  // max where it is until a row passes it by 2^8. Scores that rise by 12 (log2 units) each key tile make every tile
  // rescale O; by 3, step 5's max moves every third tile and stays put between, so both paths of softmax_tile run; at
  // a length that is not a multiple of any tile.
  for (int step : kSteps)
    for (int d : {64, 128, 256})
      for (bool causal : {false, true}) {
        const Shape s = shape(2, 1000, 4, 2, d, causal);
        for (int every : {attention::key_tile(step, s), 16})  // each tile; within tiles too (rescale not every tile)
          for (float rise : {12.0f, 3.0f}) {  // past the slack each time; below it, past it only now and then
            attention::Problem<__nv_bfloat16> p = attention::make_problem<__nv_bfloat16>(s, 9, 1.0f, {rise, every});
            const attention::CheckResult r = attention::run_and_check(p, launcher<__nv_bfloat16>(step));
            INFO("step " << step << ", " << describe(s) << ", rise " << rise << " every " << every << " keys: O off "
                         << r.o_off << " (worst " << r.o_worst << "), L off " << r.l_off);
            CHECK(r.pass());
          }
      }
}

TEST_CASE("the check fails every step with each planted bug, at two key tiles, at seqlen 1000 and at 4096",
          "[gpu]") {
  tc::test::require_exact_gpu(90);
  using tc::test::PlantedBug;
  // Step 5's tiles differ by head_dim and, at 64 and 256, by length: at 1000 tokens with a causal mask it runs steps
  // 2-4's tile at 256 (step5_long_tile) and step 1's kernel at 64 (step5_small_block), at 4096 FlashAttention-3's, so
  // each meets every bug.
  for (int head_dim : {64, 128, 256})
    for (int step : kSteps) {
      // The shortest length with two key tiles, of the tile a short causal problem runs.
      const int two_tiles = attention::key_tile(step, shape(1, 1, 4, 2, head_dim, true)) + 1;
      for (int seqlen : {two_tiles, 1000, 4096})
        for (PlantedBug bug : {PlantedBug::RescaleSkipped, PlantedBug::CausalOffByOne, PlantedBug::MiddleSliceTwice,
                               PlantedBug::WrongKvHead}) {
          // At two key tiles a causal mask leaves the second to the last row alone, whose max it rarely moves, so a
          // skipped rescale would go unseen there: at two key tiles only the causal bug runs causal.
          const bool causal = seqlen > two_tiles || bug == PlantedBug::CausalOffByOne;
          const Shape s = shape(1, seqlen, 4, 2, head_dim, causal);
          // A skipped rescale shows where a row's max grows: on scores that rise by 12 (log2 units) each key tile,
          // past step 5's slack of 8 (kRescaleSlack), so that every tile moves the max. The other bugs on a peaky
          // softmax (Q times 8), whose weight spreads over all the keys: a rising one leaves it on the last tile.
          attention::Problem<__nv_bfloat16> p =
              bug == PlantedBug::RescaleSkipped
                  ? attention::make_problem<__nv_bfloat16>(s, 5, 1.0f, {12.0f, attention::key_tile(step, s)})
                  : attention::make_problem<__nv_bfloat16>(s, 5, 8.0f);
          CHECK(attention::run_and_check(p, launcher<__nv_bfloat16>(step)).pass());  // without the bug, first
          const tc::test::PlantedBugScope plant(bug);
          INFO("step " << step << ", " << describe(s) << ", bug " << int(bug));
          CHECK_FALSE(attention::run_and_check(p, launcher<__nv_bfloat16>(step)).pass());
        }
    }
}

#if defined(TC_HAVE_CUDNN)
TEST_CASE("cuDNN's SDPA, the yardstick, passes the chapter's check on its layouts, masks and GQA", "[gpu]") {
  tc::test::require_exact_gpu(90);
  for (const Shape& s :
       {shape(2, 512, 4, 4, 128, false), shape(1, 300, 8, 2, 64, true), shape(1, 256, 2, 2, 256, true)}) {
    attention::Problem<__nv_bfloat16> p = attention::make_problem<__nv_bfloat16>(s, 3);
    attention::CudnnSdpa sdpa = attention::CudnnSdpa::make<__nv_bfloat16>(s);
    const attention::CheckResult r = attention::run_and_check(
        p, [&](const Shape&, const attention::DeviceTensors<__nv_bfloat16>& t, cudaStream_t st) {
          sdpa.run(t.q, t.k, t.v, t.o, t.lse, st);
        });
    INFO("cuDNN " << attention::CudnnSdpa::version() << ", " << describe(s) << ": O off " << r.o_off << ", L off "
                  << r.l_off);
    CHECK(r.pass());
  }
}
#endif
