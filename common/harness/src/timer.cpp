#include "tc/timer.hpp"

#include <algorithm>

namespace tc {

TimingStats summarize(std::vector<float> samples_ms) {
  if (samples_ms.empty()) throw std::invalid_argument("summarize: no timing samples");
  std::sort(samples_ms.begin(), samples_ms.end());
  const std::size_t n = samples_ms.size();
  TimingStats s;
  s.repeats = static_cast<int>(n);
  s.min_ms = samples_ms.front();
  s.max_ms = samples_ms.back();
  s.median_ms = n % 2 == 1 ? samples_ms[n / 2] : 0.5 * (double(samples_ms[n / 2 - 1]) + samples_ms[n / 2]);
  return s;
}

}  // namespace tc
