// Chapter 10 -- the mixture-of-experts routing that the grouped GEMM (step 6) is measured on: how many of a batch's
// routed rows each expert gets.
//
// A mixture-of-experts layer sends each token to its top-k experts. Sorted by expert, the routed rows make one GEMM
// per expert: group g has M_g rows and its own weight B_g. The suite's batch is 4096 tokens, top-2, so 8192 routed
// rows, over 8 or 64 experts. Real routers are uneven: a few experts take most of the tokens, and in any one batch
// some take none. The draw models both:
// - each token picks top_k distinct experts, each pick from a Zipf(s) law over the experts' popularity ranks,
//   P(rank r) proportional to r^-s for r = 1 .. experts - 1;
// - the last rank is an expert the router never picks in this batch (probability 0), so that there is always an
//   empty group for the grouped kernel to skip;
// - which expert holds which rank is a seeded permutation, so that the large groups are not all at the front.
// The random bits are std::mt19937_64's, whose output the C++ standard fixes for a seed, turned into doubles and
// indices by this file's own arithmetic (the standard library's distributions differ between implementations), so
// the same seed gives the same groups everywhere. Host only, pure.
#pragma once

#include "tc/cli.hpp"  // tc::UsageError, tc::parse_int_list

#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace moe {

// The rows each expert gets (index: the expert), summing to tokens * top_k. Errors: std::invalid_argument for
// tokens < 1, fewer than 3 experts, or top_k outside [1, experts - 1] (the never-picked expert is not a choice).
inline std::vector<int> zipf_routing(int tokens, int top_k, int experts, double s, std::uint64_t seed) {
  if (tokens < 1 || experts < 3 || top_k < 1 || top_k > experts - 1)
    throw std::invalid_argument("zipf_routing: needs tokens >= 1, experts >= 3 and 1 <= top_k <= experts - 1; got " +
                                std::to_string(tokens) + " tokens, " + std::to_string(experts) + " experts, top " +
                                std::to_string(top_k));
  std::mt19937_64 bits(seed);
  auto uniform = [&] { return double(bits() >> 11) * 0x1p-53; };  // [0, 1), every value exact
  // Rank r (0-based) is held by expert owner[r]: a Fisher-Yates shuffle (the modulo bias is below 2^-57).
  std::vector<int> owner(experts);
  for (int e = 0; e < experts; ++e) owner[e] = e;
  for (int i = experts - 1; i > 0; --i) std::swap(owner[i], owner[bits() % std::uint64_t(i + 1)]);
  // The cumulative law over the picked ranks 0 .. experts - 2; the last rank gets nothing.
  std::vector<double> cdf(experts - 1);
  double total = 0.0;
  for (int r = 0; r < experts - 1; ++r) cdf[r] = total += std::pow(double(r + 1), -s);
  auto draw_rank = [&] {
    const double u = uniform() * total;
    int r = 0;
    while (r < experts - 2 && cdf[r] <= u) ++r;
    return r;
  };
  std::vector<int> rows(experts, 0);
  std::vector<int> picked;
  for (int t = 0; t < tokens; ++t) {
    picked.clear();
    while (int(picked.size()) < top_k) {  // top_k distinct experts: a repeat is drawn again
      const int r = draw_rank();
      bool seen = false;
      for (int p : picked) seen = seen || p == r;
      if (!seen) picked.push_back(r);
    }
    for (int r : picked) ++rows[owner[r]];
  }
  return rows;
}

// The group sizes of --groups: non-negative counts, comma-separated, that sum to `rows` (the routed rows), at most
// `max_groups` of them. Errors: tc::UsageError (exit 2), one line, for anything else.
inline std::vector<int> parse_group_sizes(const std::string& text, long long rows, int max_groups) {
  std::vector<int> sizes;
  long long sum = 0;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = text.find(',', at);
    const std::string item = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    std::size_t used = 0;
    long long v = -1;
    try {
      v = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size() || v < 0 || v > (1LL << 30))
      throw tc::UsageError("--groups expects row counts >= 0, comma-separated; got '" + item + "'");
    sizes.push_back(int(v));
    sum += v;
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  if (int(sizes.size()) > max_groups)
    throw tc::UsageError("--groups: " + std::to_string(sizes.size()) + " groups, more than the " +
                         std::to_string(max_groups) + " the grouped kernel's scheduler supports");
  if (sum != rows)
    throw tc::UsageError("--groups: the sizes sum to " + std::to_string(sum) + " rows, not the " +
                         std::to_string(rows) + " routed rows (tokens x top-k)");
  return sizes;
}

}  // namespace moe
