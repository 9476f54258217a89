// Chapter 11 -- the check: a kernel's O and L against the fp32 reference's, element by element, each within a bound
// derived from what the kernel rounds. Host code.
//
// [doc:bound]
// The bound on O. The kernel computes S in fp32 from the 16-bit inputs (the reference's scores, up to the order of
// the sums), and the softmax in fp32; what it rounds is P (to the input type, to feed P V through wgmma) and O (to
// the output type). With u the type's unit roundoff (2^-8 for bf16, 2^-11 for fp16):
//   - each P_j in [0, 1] (up to 2^8 under step 5's conditional rescale: softmax_tile) rounded: |dP_j| <= u P_j,
//     so |d sum_j P_j v_j| / l <= u sum_j P_j |v_j| / l <= u max|v|, l = sum_j P_j with the same base;
//   - O rounded: u |O|;
//   - the rest (fp32 sums and exp2 over the keys, the rescales): below 2^-14 max|v| at the sizes the chapter runs.
// So |O - O_ref| <= u (max|v| + |O_ref|) + 2^-14 max|v|, where max|v| is over the V the row reads (here over all
// of V: looser, never tighter). The bound on L: the sums are fp32 on both sides, so |L - L_ref| <= 2^-14 (1 + |L_ref|).
// A row that sees no key must be O = 0 and L = -inf exactly, on both sides.
// [/doc:bound]
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace attention {

struct CheckResult {
  std::int64_t o_off = 0, l_off = 0;  // elements outside their bound
  double o_worst = 0.0;               // the largest |O - O_ref| / bound (> 1: off)
  double l_worst = 0.0;               // the largest |L - L_ref| / bound
  bool pass() const { return o_off == 0 && l_off == 0; }
};

// o and o_ref as problem.hpp lays O out (o converted to float), l and l_ref as L; v_max = max |V|; unit_roundoff:
// 2^-8 (bf16) or 2^-11 (fp16). Preconditions: equal sizes.
inline CheckResult check_attention(const std::vector<float>& o, const std::vector<float>& o_ref,
                                   const std::vector<float>& l, const std::vector<float>& l_ref, double v_max,
                                   double unit_roundoff) {
  CheckResult r;
  for (std::size_t i = 0; i < o.size(); ++i) {
    const double bound = unit_roundoff * (v_max + std::fabs(o_ref[i])) + std::ldexp(v_max, -14);
    const double err = std::fabs(double(o[i]) - double(o_ref[i]));
    const double ratio = std::isnan(err) ? INFINITY : err / bound;
    r.o_worst = std::max(r.o_worst, ratio);
    r.o_off += !(ratio <= 1.0);
  }
  for (std::size_t i = 0; i < l.size(); ++i) {
    if (std::isinf(l_ref[i]) || std::isinf(l[i])) {  // a row that sees no key: both -inf, nothing else
      r.l_off += !(l[i] == l_ref[i]);
      continue;
    }
    const double bound = std::ldexp(1.0 + std::fabs(l_ref[i]), -14);
    const double ratio = std::fabs(double(l[i]) - double(l_ref[i])) / bound;
    r.l_worst = std::max(r.l_worst, std::isnan(ratio) ? INFINITY : ratio);
    r.l_off += !(ratio <= 1.0);
  }
  return r;
}

}  // namespace attention
