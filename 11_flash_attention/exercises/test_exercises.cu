// Chapter 11's graded exercises (README, "Workshop mode"), host-checked: the online softmax's row update, run over
// rows of random peaky scores in tiles and held to the softmax computed whole in double; the key tiles a row block
// loads and the ones it masks, held to a brute-force walk of the causal mask (attention::causal_visible). CUDA
// source because the chapter's headers are; nothing here runs on a GPU.
#if TC_EXERCISE_SOLUTIONS
#include "exercises/solutions.hpp"
#else
#include "exercises/ex1_online_softmax.hpp"
#include "exercises/ex2_key_tiles.hpp"
#endif

#include "problem.hpp"

#include "tc_test/catch.hpp"
#include "tc_test/exercise.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

TEST_CASE("exercise 11.1: one row's step of the online softmax", "[exercise]") {
  tc::exercise::grade([] {
    constexpr int kTile = 64, kDims = 4;
    const float scale_log2 = float(1.4426950408889634 / std::sqrt(128.0));
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> score(-40.0f, 40.0f), value(-1.0f, 1.0f);
    // Rows of every kind: one key, ragged tiles, long; keys masked at the start (a row that sees none for a while:
    // m stays -inf), none, and all of them.
    for (int length : {1, 63, 64, 65, 300, 1000})
      for (int masked_first : {0, std::min(70, length), length}) {
        std::vector<float> s(length), v(std::size_t(length) * kDims);
        for (int j = 0; j < length; ++j) s[j] = j < masked_first ? -INFINITY : score(rng);
        for (float& x : v) x = value(rng);
        float m = -INFINITY, l = 0.0f, o[kDims] = {};
        for (int key0 = 0; key0 < length; key0 += kTile) {
          const int end = std::min(length, key0 + kTile);
          float tile_max = -INFINITY;
          for (int j = key0; j < end; ++j) tile_max = std::max(tile_max, s[j]);
          const ex11_1::RowUpdate u = ex11_1::online_row_update(m, tile_max, scale_log2);
          INFO("row of " << length << " keys, the first " << masked_first << " masked; tile at key " << key0
                         << ": m " << m << ", tile_max " << tile_max << " -> m' " << u.m << ", base " << u.base
                         << ", rescale " << u.rescale);
          REQUIRE_FALSE(std::isnan(u.base));
          REQUIRE_FALSE(std::isnan(u.rescale));
          l *= u.rescale;
          for (float& x : o) x *= u.rescale;
          for (int j = key0; j < end; ++j) {
            const float p = std::exp2(s[j] * scale_log2 - u.base);
            REQUIRE_FALSE(std::isnan(p));
            l += p;
            for (int e = 0; e < kDims; ++e) o[e] += p * v[std::size_t(j) * kDims + e];
          }
          m = u.m;
        }
        INFO("row of " << length << " keys, the first " << masked_first << " masked: m " << m << ", l " << l);
        if (masked_first == length) {  // a row that sees no key: nothing summed
          REQUIRE(l == 0.0f);
          continue;
        }
        // The softmax whole, in double: p_j = e^(s_j / sqrt(d)) relative to the row's max.
        double big = -INFINITY, sum = 0.0, want[kDims] = {};
        for (float x : s) big = std::max(big, double(x));
        for (int j = 0; j < length; ++j) {
          const double p = std::exp((double(s[j]) - big) / std::sqrt(128.0));
          sum += p;
          for (int e = 0; e < kDims; ++e) want[e] += p * v[std::size_t(j) * kDims + e];
        }
        for (int e = 0; e < kDims; ++e) {
          INFO("O[" << e << "] = " << o[e] / l << ", the softmax whole gives " << want[e] / sum);
          REQUIRE(std::fabs(o[e] / l - want[e] / sum) <= 1e-4);
        }
        // The logsumexp in log2 units: m + log2 l.
        const double lse2 = big * scale_log2 + std::log2(sum);
        INFO("m + log2 l = " << m + std::log2(l) << ", want " << lse2);
        REQUIRE(std::fabs(m + std::log2(l) - lse2) <= 1e-4 * (1.0 + std::fabs(lse2)));
      }
  });
}

TEST_CASE("exercise 11.2: the key tiles a row block loads, and the ones it masks", "[exercise]") {
  tc::exercise::grade([] {
    for (bool causal : {false, true})
      for (int n : {64, 128})
        for (int rows : {64, 128})
          for (int sq : {1, 5, 64, 65, 129, 300})
            for (int sk : {1, 5, 63, 64, 65, 128, 129, 300})
              for (int row0 = 0; row0 < sq; row0 += rows) {
                auto visible = [&](int i, int j) {
                  return j < sk && (!causal || attention::causal_visible(i, j, sq, sk));
                };
                int last = -1;
                for (int i = row0; i < row0 + rows; ++i)
                  for (int j = 0; j < sk; ++j)
                    if (visible(i, j)) last = std::max(last, j);
                const int want = last < 0 ? 0 : last / n + 1;
                INFO((causal ? "causal, " : "") << "sq " << sq << ", sk " << sk << ", rows " << row0 << " .. "
                                                << row0 + rows - 1 << ", tiles of " << n << ": key_tiles "
                                                << ex11_2::key_tiles(row0, rows, n, sq, sk, causal) << ", want "
                                                << want);
                REQUIRE(ex11_2::key_tiles(row0, rows, n, sq, sk, causal) == want);
                for (int key0 = 0; key0 < want * n; key0 += n) {
                  bool hidden = false;  // some key of the tile that one of the warpgroup's 64 rows may not see
                  for (int i = row0; i < row0 + 64; ++i)
                    for (int j = key0; j < key0 + n; ++j) hidden |= !visible(i, j);
                  INFO("the tile at key " << key0 << ", for rows " << row0 << " .. " << row0 + 63 << ": "
                                          << (hidden ? "some key is hidden from some row" : "every row sees all"));
                  REQUIRE(ex11_2::tile_needs_mask(row0, key0, n, sq, sk, causal) == hidden);
                }
              }
  });
}
