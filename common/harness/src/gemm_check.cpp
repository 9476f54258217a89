#include "tc/gemm_check.hpp"

#include <algorithm>
#include <cstdio>

namespace tc {

std::string format_verification(const std::string& what_header, const std::vector<VerificationRow>& rows) {
  std::size_t width = what_header.size();
  for (const VerificationRow& r : rows) width = std::max(width, r.what.size());
  const int w = static_cast<int>(width);
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-*s  %-10s %22s %10s  %13s %10s  %10s %10s  %7s\n", w, what_header.c_str(),
                "exact on", "exact: elements off", "max bound", "random |err|", "its bound", "rms error", "rms bound",
                "verdict");
  out += line;
  std::vector<std::string> unresolved;
  for (const VerificationRow& r : rows) {
    const GemmVerdict& v = r.verdict;
    const std::string off = std::to_string(v.exact.failures) + "/" + std::to_string(v.exact.checked);
    char rms_bound[32] = "-";  // integer outputs: exact, no statistical check
    if (v.random.rms_bound >= 0.0) std::snprintf(rms_bound, sizeof rms_bound, "%.3g", v.random.rms_bound);
    std::snprintf(line, sizeof line, "%-*s  %-10s %22s %10.3g  %13.3g %10.3g  %10.3g %10s  %7s\n", w, r.what.c_str(),
                  v.exact_range.c_str(), off.c_str(), v.exact.largest_bound, v.random.worst_error,
                  v.random.worst_bound, v.random.rms_error, rms_bound, v.passed() ? "PASS" : "FAIL");
    out += line;
    if (v.exact.checked > 0 && !resolves_one_term(v.exact, r.alpha)) unresolved.push_back(r.what);
  }
  out += "exact on: the exact check's operands, integers in that range (s8/u8: their full range), so every product and\n"
         "partial sum is exact in the accumulator and an element may miss the fp64 reference only by the epilogue's\n"
         "rounding, at most 4*u_out*mag (max bound: the largest over all elements). One product term dropped or counted\n"
         "twice moves an element by |alpha*a*b| >= |alpha|, more than that, so it fails at any K; so do a transposed\n"
         "operand, a wrong alpha or beta and an unwritten tile (poisoned with NaN). random |err|: the timed operands\n"
         "(uniform in [-1, 1); s8/u8 full range) against the fp64 reference, beside the worst-case bound\n"
         "k*u_acc*mag + u_out*|ref| at that element (tc/compare.hpp), which grows like K^2 and is no such guard.\n"
         "rms error: the root mean square of the random operands' error, which must stay below the rms bound\n"
         "sqrt(K)*(u_in*|alpha|*RMS(a*b) + (u_acc + u_ref)*RMS(ref)) + u_out*RMS(ref) (tc/gemm_check.hpp): rounding\n"
         "errors add like a random walk, so a kernel that reads its inputs at a lower precision than their type's\n"
         "(fp16 as bf16, tf32 truncated) shows there at any K.\n";
  for (const VerificationRow& r : rows) {  // where a check failed, its worst element, for whoever debugs the kernel
    if (!r.verdict.exact.passed) out += "FAIL " + r.what + ", exact check: " + r.verdict.exact.summary() + "\n";
    if (!r.verdict.random.passed) out += "FAIL " + r.what + ", random check: " + r.verdict.random.summary() + "\n";
  }
  for (const std::string& what : unresolved) {
    out += "note: " + what + ": the max bound is not below |alpha|, so here the exact check cannot resolve one product\n"
           "term everywhere (alpha is small beside beta * C, K is near the exact range's end, or the output is bf16, whose\n"
           "rounding hides one term where |C| >= 256 |alpha|)\n";
  }
  return out;
}

void print_verification(const std::string& what_header, const std::vector<VerificationRow>& rows) {
  std::fputs(format_verification(what_header, rows).c_str(), stdout);
}

}  // namespace tc
