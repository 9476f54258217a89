// 11_timeline: what each consumer warpgroup of one block does, and when, in steps 2, 3 and 4 (docs/11, "Step 3:
// ping-pong"): the phases the kernels mark with tc::trace_point (TracePhase, step2_warp_specialized.cuh), recorded
// on the SM's clock by thread 0 of each warpgroup of block (0, 0, 0), drawn as a timeline
// (11_pingpong_timeline.svg), and summed: the share of each consumer's time in each phase, and of the block's time in
// which both consumers ran their softmax at once (the tensor cores then idle, whatever the other one had issued).
// This binary alone is compiled with TC_TRACE_HOOK; in every other, trace_point compiles to nothing.
// Usage: 11_timeline [--seqlen N] [--batch B] [--heads H] [--head-dim D] [--out DIR] (default docs/figures).
// Exit codes: README.md, "Exit codes" (77: no SM 9.0 GPU).
#include "run.cuh"

#include "chapter_config.hpp"
#include "tc/cli.hpp"
#include "tc/device.hpp"
#include "tc/exit_codes.hpp"
#include "tc/main.hpp"
#include "tc/svg.hpp"
#include "tc/trace_point.cuh"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Interval {
  long long begin, end;
  int phase;
};

constexpr int kPhases = 4;
const char* const kPhaseNames[kPhases] = {"waits for loads", "waits for its turn", "waits for its wgmmas",
                                          "softmax (CUDA cores)"};
const char* const kPhaseColours[kPhases] = {"#dddddd", "#f4c542", "#6fa8dc", "#e06666"};

// One traced launch of `launch`: each consumer's phases (consumer c: warpgroup c + 1), from its first record to its
// last (which opens the epilogue, and so ends nothing).
template <typename Launch>
std::vector<std::vector<Interval>> trace(Launch launch) {
  constexpr int kCapacity = 1 << 16;
  tc::DeviceBuffer<std::uint64_t> records(2 * kCapacity);
  tc::DeviceBuffer<int> count(1);
  launch();  // warm: the first launch pays for loading the module
  TC_CHECK(cudaDeviceSynchronize());
  count.upload({0});
  const tc::detail::TraceSink sink{records.data(), count.data(), kCapacity, 0};
  TC_CHECK(cudaMemcpyToSymbol(tc::detail::g_trace_sink, &sink, sizeof sink));
  launch();
  TC_CHECK(cudaDeviceSynchronize());
  const tc::detail::TraceSink off{};
  TC_CHECK(cudaMemcpyToSymbol(tc::detail::g_trace_sink, &off, sizeof off));  // capacity 0: record nothing
  const int n = std::min(count.download()[0], kCapacity);
  const std::vector<std::uint64_t> words = records.download();
  std::vector<std::vector<std::pair<long long, int>>> events(2);
  for (int i = 0; i < n; ++i) {
    const int warpgroup = int(words[2 * i + 1] >> 16), phase = int(words[2 * i + 1] & 0xffff);
    if (warpgroup >= 1 && warpgroup <= 2) events[warpgroup - 1].push_back({(long long)words[2 * i], phase});
  }
  std::vector<std::vector<Interval>> out(2);
  for (int c = 0; c < 2; ++c) {
    std::sort(events[c].begin(), events[c].end());
    for (std::size_t i = 0; i + 1 < events[c].size(); ++i)
      out[c].push_back({events[c][i].first, events[c][i + 1].first, events[c][i].second});
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  return tc::run_main([&] {
    tc::Cli cli("11_timeline", "Chapter 11: each consumer's phases in steps 2, 3 and 4, traced on the SM's clock");
    cli.add_int("seqlen", 2048, "tokens a sequence (block (0, 0, 0), the one traced, walks every key tile)");
    cli.add_int("batch", 4, "sequences (with --heads, enough blocks that the traced one shares the GPU as in a run)");
    cli.add_int("heads", 16, "heads");
    cli.add_choice("head-dim", "128", {"64", "128", "256"}, "head dimension");
    cli.add_string("out", "docs/figures", "folder the timeline's SVG is written to");
    if (!cli.parse(argc, argv)) return tc::kExitOk;
    attention::Shape s;
    s.seqlen_q = s.seqlen_k = int(cli.get_int("seqlen"));
    s.batch = int(cli.get_int("batch"));
    s.heads = s.kv_heads = int(cli.get_int("heads"));
    s.head_dim = std::stoi(cli.get_choice("head-dim"));
    if (const auto why = attention::shape_problem(s)) throw tc::UsageError(*why);
    tc::require_exact_sm(90, "11_timeline");
    const tc::DeviceInfo device = tc::require_sm(90, "11_timeline", true);
    std::printf("# device:  %s\n", tc::describe(device).c_str());

    attention::Problem<__nv_bfloat16> p = attention::make_problem<__nv_bfloat16>(s, 2026);
    const attention::DeviceTensors<__nv_bfloat16> t = p.tensors();
    struct Step {
      const char* name;
      std::vector<std::vector<Interval>> consumers;
    };
    std::vector<Step> steps = {
        {"step 2 (no turns)", trace([&] { attention::launch_step2(s, t, nullptr); })},
        {"step 3 (ping-pong)", trace([&] { attention::launch_step3(s, t, nullptr); })},
        {"step 4 (softmax under P V)", trace([&] { attention::launch_step4(s, t, nullptr); })},
    };

    // A trace with a silent consumer would draw an empty row and sum to nothing: an error, not a figure.
    for (const Step& st : steps)
      for (int c = 0; c < 2; ++c)
        if (st.consumers[c].empty())
          throw std::runtime_error(std::string(st.name) + ": consumer " + std::to_string(c) + " recorded no phase");

    // The summary: each consumer's share of its traced time in each phase; both in their softmax at once.
    std::printf("== block (0, 0, 0) of batch %d, seqlen %d, heads %d, head_dim %d, bf16; shares of each consumer's "
                "traced cycles ==\n",
                s.batch, s.seqlen_q, s.heads, s.head_dim);
    std::printf("%-28s %-9s %9s", "step", "consumer", "cycles");
    for (const char* name : kPhaseNames) std::printf(" %22s", name);
    std::printf(" %14s\n", "both softmax");
    for (const Step& st : steps) {
      long long both = 0, span_end = 0, span_begin = 1LL << 62;
      for (const Interval& a : st.consumers[0])
        for (const Interval& b : st.consumers[1])
          if (a.phase == attention::kSoftmax && b.phase == attention::kSoftmax)
            both += std::max(0LL, std::min(a.end, b.end) - std::max(a.begin, b.begin));
      for (int c = 0; c < 2; ++c) {
        long long per[kPhases] = {}, total = 0;
        for (const Interval& iv : st.consumers[c]) {
          per[iv.phase] += iv.end - iv.begin;
          total += iv.end - iv.begin;
          span_begin = std::min(span_begin, iv.begin);
          span_end = std::max(span_end, iv.end);
        }
        std::printf("%-28s %-9d %9lld", c == 0 ? st.name : "", c, total);
        for (long long x : per) std::printf(" %21.1f%%", total > 0 ? 100.0 * double(x) / double(total) : 0.0);
        if (c == 1)
          std::printf(" %13.1f%%", span_end > span_begin ? 100.0 * double(both) / double(span_end - span_begin) : 0.0);
        std::printf("\n");
      }
    }

    // The figure: a few key tiles' worth of each step, from the end of consumer 0's first wait (Q's load and the
    // first K tile's: the prologue), a row a consumer, a colour a phase; each step's name on a line above its rows.
    constexpr int kLeft = 100, kWidth = 900, kRow = 18;
    // SM cycles drawn: about two key tiles at head_dim 128 (the summary's cycles a consumer, over its tiles).
    constexpr long long kWindow = 12000;
    std::string body;
    int y = 20;
    for (int ph = 0; ph < kPhases; ++ph) {
      body += tc::svg::rect(kLeft + 220 * ph, y - 11, 14, 14, kPhaseColours[ph]);
      body += tc::svg::text(kLeft + 220 * ph + 20, y, kPhaseNames[ph]);
    }
    y += 24;
    for (const Step& st : steps) {
      const long long t0 = st.consumers[0].front().end;
      body += tc::svg::text(10, y + 10, st.name);
      y += 16;
      for (int c = 0; c < 2; ++c) {
        body += tc::svg::text(10, y + 13, "consumer " + std::to_string(c));
        for (const Interval& iv : st.consumers[c]) {
          const long long b = std::max(iv.begin - t0, 0LL), e = std::min(iv.end - t0, kWindow);
          if (b >= kWindow) break;
          const int x0 = kLeft + int(b * kWidth / kWindow), x1 = kLeft + int(e * kWidth / kWindow);
          if (x1 > x0) body += tc::svg::rect(x0, y, x1 - x0, kRow - 2, kPhaseColours[iv.phase]);
        }
        y += kRow;
      }
      y += 10;
    }
    body += tc::svg::text(kLeft, y + 6, "SM clock cycles from the end of the prologue: 0 to " +
                                            std::to_string(kWindow));
    const std::string path = cli.get_string("out") + "/11_pingpong_timeline.svg";
    std::ofstream out(path);
    out << tc::svg::document(kLeft + kWidth + 20, y + 20, body);
    if (!out) throw tc::UsageError("cannot write " + path);
    std::printf("wrote %s\n", path.c_str());
    return tc::kExitOk;
  });
}
