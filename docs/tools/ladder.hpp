// The benchmark ladder, rendered: the tables and the chart the README and the walkthroughs show, made from
// docs/results/ladder.csv and nothing else (tc/bench_csv.hpp writes its rows; cmake/ladder.cmake its "# " lines).
//
// parse_ladder(text)          the provenance lines and the rows; std::runtime_error naming the line if malformed.
// ladder_table(ladder, ch)    the text table of chapter `ch` ("02".."08"), or of every chapter for "all": one row
//                             per kernel with "TFLOP/s  % of cublasGemmEx" at each size, then the two yardsticks' rows
//                             for each precision and layout the chapter timed: cublasGemmEx (default algorithm, 100%
//                             by definition) and cuBLASLt's best of its first 8 heuristic algorithms, whose own share
//                             of cublasGemmEx is the higher bar a kernel meets when it reaches it. A yardstick row
//                             identical to one already shown (chapter 04's u8 rows are timed against the libraries'
//                             s8 GEMMs) is not repeated; "-" where the library has no such GEMM (the note says when).
// ladder_best(ladder)         the README's summary: one row per chapter, its best kernel (the highest % of
//                             cublasGemmEx at the largest size every chapter ran, u8 rows left out since the libraries
//                             time their s8 GEMM in its place; a tie goes to the row listed first)
//                             at the two largest sizes every chapter ran, beside both yardsticks: TFLOP/s, % of
//                             cublasGemmEx, % of cuBLASLt best-of-8 ("-" where cuBLASLt has no such GEMM).
// ladder_svg(ladder, ch)      the chart: per chapter, TFLOP/s against size and % of cublasGemmEx (cublasGemmEx
//                             dashed, cuBLASLt best-of-8 dotted).
// A CSV written before the cuBLASLt columns (13 fields a row) still reads; its tables and charts say it has none.
// Host C++ only, no CUDA: doc_sync includes it to check and rewrite the quoted tables and the figures.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace ladder {

struct Row {
  std::string chapter, kernel, precision, layout;
  int m = 0, n = 0, k = 0;
  double tflops = 0.0;
  double cublas_tflops = 0.0;  // cublasGemmEx (default algorithm); 0: not timed
  double pct = -1.0;           // % of cublasGemmEx; -1: none
  double lt_tflops = 0.0;      // cuBLASLt best-of-8; 0: none
  std::string verdict;
};

struct Ladder {
  std::vector<std::string> provenance;  // the "# " lines, as written
  std::vector<Row> rows;
  bool has_lt = true;  // false: the CSV predates the cuBLASLt columns
};

inline constexpr const char* kGemmExLabel = "cublasGemmEx";
inline constexpr const char* kLtLabel = "cuBLASLt best-of-8";

inline std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, sep)) out.push_back(field);
  if (!line.empty() && line.back() == sep) out.push_back("");
  return out;
}

inline Ladder parse_ladder(const std::string& text) {
  static const char* kHeader =
      "chapter,kernel,precision,layout,m,n,k,ms,tflops,cublas_ms,cublas_tflops,pct_cublas,lt_best_ms,lt_best_tflops,"
      "pct_lt_best,verdict";
  static const char* kHeaderBeforeLt =
      "chapter,kernel,precision,layout,m,n,k,ms,tflops,cublas_ms,cublas_tflops,pct_cublas,verdict";
  Ladder l;
  std::istringstream in(text);
  int number = 0;
  std::size_t fields = 0;  // per row, once the header line has said which format
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.rfind("# ", 0) == 0) {
      l.provenance.push_back(line);
      continue;
    }
    if (line == kHeader || line == kHeaderBeforeLt) {
      fields = line == kHeader ? 16 : 13;
      l.has_lt = fields == 16;
      continue;
    }
    const std::vector<std::string> f = split(line, ',');
    if (fields == 0 || f.size() != fields) {
      throw std::runtime_error("ladder CSV line " + std::to_string(number) + ": expected the header line, then " +
                               std::to_string(fields == 0 ? 16 : fields) + " fields per row: '" + line + "'");
    }
    try {
      Row r;
      r.chapter = f[0], r.kernel = f[1], r.precision = f[2], r.layout = f[3];
      r.m = std::stoi(f[4]), r.n = std::stoi(f[5]), r.k = std::stoi(f[6]);
      r.tflops = std::stod(f[8]);
      if (f[10] != "-") r.cublas_tflops = std::stod(f[10]);
      if (f[11] != "-") r.pct = std::stod(f[11]);
      if (fields == 16 && f[13] != "-") r.lt_tflops = std::stod(f[13]);
      r.verdict = f[fields - 1];
      l.rows.push_back(r);
    } catch (const std::logic_error&) {
      throw std::runtime_error("ladder CSV line " + std::to_string(number) + ": a number does not parse: '" + line +
                               "'");
    }
  }
  if (l.rows.empty()) throw std::runtime_error("ladder CSV holds no rows");
  return l;
}

// Sizes (m, in ascending order) and the chapters, in the order they appear.
inline std::vector<int> sizes_of(const Ladder& l) {
  std::set<int> s;
  for (const Row& r : l.rows) s.insert(r.m);
  return {s.begin(), s.end()};
}
inline std::vector<std::string> chapters_of(const Ladder& l, const std::string& which) {
  std::vector<std::string> out;
  for (const Row& r : l.rows)
    if ((which == "all" || which == r.chapter) && std::find(out.begin(), out.end(), r.chapter) == out.end())
      out.push_back(r.chapter);
  if (out.empty()) throw std::runtime_error("ladder CSV has no rows of chapter " + which);
  return out;
}

// One line of the chart or table: a kernel or a yardstick of one chapter at one precision and layout, by size.
enum class Kind { Kernel, GemmEx, LtBest };

struct Series {
  std::string chapter, label, precision, layout;
  Kind kind = Kind::Kernel;
  std::map<int, double> tflops, pct;  // by size; pct: % of cublasGemmEx
};

inline std::vector<Series> series_of(const Ladder& l, const std::string& chapter) {
  std::vector<Series> kernels, yardsticks;
  auto find = [](std::vector<Series>& v, const Row& r, const std::string& label, Kind kind) -> Series& {
    for (Series& s : v)
      if (s.label == label && s.precision == r.precision && s.layout == r.layout) return s;
    Series s;
    s.chapter = r.chapter, s.label = label, s.precision = r.precision, s.layout = r.layout, s.kind = kind;
    v.push_back(s);
    return v.back();
  };
  for (const Row& r : l.rows) {
    if (r.chapter != chapter) continue;
    Series& s = find(kernels, r, r.kernel, Kind::Kernel);
    s.tflops[r.m] = r.tflops;
    if (r.pct >= 0.0) s.pct[r.m] = r.pct;
    if (r.cublas_tflops > 0.0) {
      Series& c = find(yardsticks, r, kGemmExLabel, Kind::GemmEx);
      c.tflops[r.m] = r.cublas_tflops;
      c.pct[r.m] = 100.0;
      if (l.has_lt) {
        Series& lt = find(yardsticks, r, kLtLabel, Kind::LtBest);
        if (r.lt_tflops > 0.0) {
          lt.tflops[r.m] = r.lt_tflops;
          lt.pct[r.m] = 100.0 * r.lt_tflops / r.cublas_tflops;
        }
      }
    }
  }
  for (const Series& y : yardsticks) {
    const bool repeat = std::any_of(kernels.begin(), kernels.end(), [&](const Series& s) {
      return s.kind == y.kind && s.tflops == y.tflops;
    });
    if (!repeat) kernels.push_back(y);
  }
  return kernels;
}

inline std::string format(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

inline std::vector<std::string> ladder_table(const Ladder& l, const std::string& which) {
  const std::vector<int> sizes = sizes_of(l);
  std::vector<std::string> out = l.provenance;
  int kernel_width = 15;  // the widest kernel label shown, so that chapter 08's longer names keep the columns aligned
  for (const std::string& ch : chapters_of(l, which))
    for (const Series& s : series_of(l, ch)) kernel_width = std::max(kernel_width, int(s.label.size()));
  char cell[512];
  std::snprintf(cell, sizeof cell, "%-7s %-*s %-10s %-6s", "chapter", kernel_width, "kernel", "precision", "layout");
  std::string head = cell;
  for (int size : sizes) {
    std::snprintf(cell, sizeof cell, "  %5d: TFLOP/s %%gemmEx", size);
    head += cell;
  }
  out.push_back(head);
  for (const std::string& ch : chapters_of(l, which)) {
    for (const Series& s : series_of(l, ch)) {
      std::snprintf(cell, sizeof cell, "%-7s %-*s %-10s %-6s", s.chapter.c_str(), kernel_width, s.label.c_str(),
                    s.precision.c_str(), s.layout.c_str());
      std::string text = cell;
      for (int size : sizes) {
        const auto t = s.tflops.find(size);
        const auto p = s.pct.find(size);
        if (t == s.tflops.end()) std::snprintf(cell, sizeof cell, "  %15s", "-");
        else std::snprintf(cell, sizeof cell, "  %15.1f", t->second);
        text += cell;
        if (p == s.pct.end()) std::snprintf(cell, sizeof cell, " %7s", "-");
        else std::snprintf(cell, sizeof cell, " %6.1f%%", p->second);
        text += cell;
      }
      out.push_back(text);
    }
  }
  out.push_back("TFLOP/s (TOPS for s8/u8) counts 2*M*N*K with M = N = K = the size. Two yardsticks, each timed in the "
                "same process at the same precision and layout:");
  out.push_back("cublasGemmEx with CUBLAS_GEMM_DEFAULT (% gemmEx: its time over the row's), and cuBLASLt best-of-8, "
                "the fastest of the first 8 algorithms cublasLtMatmulAlgoGetHeuristic returns (64 MiB workspace).");
  out.push_back(l.has_lt ? "\"-\" for cuBLASLt: it returned no algorithm for that precision and layout (int8 other "
                           "than TN)."
                         : "This run predates the cuBLASLt column: it timed cublasGemmEx alone.");
  return out;
}

inline std::vector<std::string> ladder_best(const Ladder& l) {
  std::vector<int> common = sizes_of(l);
  const std::vector<std::string> chapters = chapters_of(l, "all");
  for (const std::string& ch : chapters) {
    std::set<int> ran;
    for (const Row& r : l.rows)
      if (r.chapter == ch) ran.insert(r.m);
    common.erase(std::remove_if(common.begin(), common.end(), [&](int m) { return ran.count(m) == 0; }), common.end());
  }
  if (common.empty()) throw std::runtime_error("ladder CSV has no size that every chapter ran");
  const std::vector<int> shown(common.end() - std::min<std::ptrdiff_t>(2, common.size()), common.end());
  std::vector<std::string> out = l.provenance;
  char cell[512];
  std::snprintf(cell, sizeof cell, "%-7s %-20s %-10s %-6s", "chapter", "best kernel", "precision", "layout");
  std::string head = cell;
  for (int size : shown) {
    std::snprintf(cell, sizeof cell, "  %5d: TFLOP/s %%gemmEx %%LtBest", size);
    head += cell;
  }
  out.push_back(head);
  for (const std::string& ch : chapters) {
    const Row* best = nullptr;
    // u8 rows are no candidates: neither library has a u8 GEMM, so their "% of cublasGemmEx" is against its s8 GEMM
    // on the same bytes, which is not the same GEMM.
    for (const Row& r : l.rows)
      if (r.chapter == ch && r.m == shown.back() && r.pct >= 0.0 && r.precision.rfind("u8", 0) != 0 &&
          (best == nullptr || r.pct > best->pct))
        best = &r;
    if (best == nullptr) throw std::runtime_error("ladder CSV: chapter " + ch + " has no row beside cublasGemmEx");
    std::snprintf(cell, sizeof cell, "%-7s %-20s %-10s %-6s", ch.c_str(), best->kernel.c_str(),
                  best->precision.c_str(), best->layout.c_str());
    std::string text = cell;
    for (int size : shown) {
      const Row* r = nullptr;
      for (const Row& x : l.rows)
        if (x.chapter == ch && x.kernel == best->kernel && x.precision == best->precision &&
            x.layout == best->layout && x.m == size)
          r = &x;
      if (r == nullptr) throw std::runtime_error("ladder CSV: chapter " + ch + " has no " + best->kernel + " row");
      std::snprintf(cell, sizeof cell, "  %15.1f %6.1f%%", r->tflops, r->pct);
      text += cell;
      if (r->lt_tflops > 0.0) std::snprintf(cell, sizeof cell, " %6.1f%%", 100.0 * r->tflops / r->lt_tflops);
      else std::snprintf(cell, sizeof cell, " %7s", "-");
      text += cell;
    }
    out.push_back(text);
  }
  out.push_back("Best kernel: the chapter's row with the highest % of cublasGemmEx at the largest size above, u8 rows "
                "left out (the libraries have no u8 GEMM; their s8 one is timed in its place). TFLOP/s (TOPS for s8) "
                "counts 2*M*N*K, M = N = K = the size.");
  out.push_back("% gemmEx: cublasGemmEx with CUBLAS_GEMM_DEFAULT; % LtBest: the fastest of the first 8 algorithms "
                "cublasLtMatmulAlgoGetHeuristic returns (64 MiB workspace); both timed in the same process, same "
                "precision and layout.");
  return out;
}

// ---- the chart ----

inline std::string escape(const std::string& s) {
  std::string o;
  for (char c : s) o += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
  return o;
}

// A value axis top that is 1, 2 or 5 times a power of ten at or above v, so the grid lines fall on round numbers.
inline double nice_top(double v) {
  const double p = std::pow(10.0, std::floor(std::log10(std::max(v, 1.0))));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= v) return m * p;
  return 10.0 * p;
}

// A kernel's line takes the s-th colour; the yardsticks are grey, cublasGemmEx dashed and cuBLASLt best-of-8 dotted.
inline std::string colour_of(const Series& series, std::size_t s) {
  static const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2"};
  return series.kind == Kind::Kernel ? kColours[s % 7] : "#555";
}
inline const char* dash_of(const Series& series) {
  return series.kind == Kind::GemmEx   ? " stroke-dasharray=\"6,4\""
         : series.kind == Kind::LtBest ? " stroke-dasharray=\"2,3\""
                                       : "";
}

inline std::string ladder_svg(const Ladder& l, const std::string& which) {
  const std::vector<int> sizes = sizes_of(l);
  const std::vector<std::string> chapters = chapters_of(l, which);
  const int kRowH = 250, kTop = 40, kPanelW = 330, kPanelH = 170, kLeft[2] = {70, 470}, kLegend = 850, kW = 1160;
  const int height = kTop + kRowH * int(chapters.size()) + 10;
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kW << "\" height=\"" << height
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg << "<text x=\"10\" y=\"22\" font-size=\"15\">Benchmark ladder: TFLOP/s (TOPS for integer) and % of "
         "cublasGemmEx (default algorithm), M = N = K (docs/results/ladder.csv)</text>\n";
  auto x_of = [&](int panel, std::size_t i) {
    return kLeft[panel] + (sizes.size() == 1 ? kPanelW / 2.0 : double(i) * kPanelW / double(sizes.size() - 1));
  };
  for (std::size_t c = 0; c < chapters.size(); ++c) {
    const std::vector<Series> series = series_of(l, chapters[c]);
    const int y0 = kTop + int(c) * kRowH + 30;  // panel top
    double top[2] = {1.0, 100.0};
    for (const Series& s : series) {
      for (const auto& [size, v] : s.tflops) top[0] = std::max(top[0], v);
      for (const auto& [size, v] : s.pct) top[1] = std::max(top[1], v);
    }
    top[0] = nice_top(top[0]);
    top[1] = nice_top(top[1]);
    const bool integer = std::all_of(series.begin(), series.end(), [](const Series& s) {
      return s.precision.rfind("s8", 0) == 0 || s.precision.rfind("u8", 0) == 0;
    });
    const char* titles[2] = {integer ? "TOPS" : "TFLOP/s", "% of cublasGemmEx"};
    for (int p = 0; p < 2; ++p) {
      svg << "<text x=\"" << kLeft[p] << "\" y=\"" << y0 - 10 << "\" font-weight=\"bold\">chapter " << chapters[c]
          << ": " << titles[p] << "</text>\n";
      for (int g = 0; g <= 4; ++g) {  // five grid lines: 0, 1/4 .. the top
        const double y = y0 + kPanelH - g * kPanelH / 4.0;
        svg << "<line x1=\"" << kLeft[p] << "\" y1=\"" << y << "\" x2=\"" << kLeft[p] + kPanelW << "\" y2=\"" << y
            << "\" stroke=\"#ddd\"/>\n<text x=\"" << kLeft[p] - 6 << "\" y=\"" << y + 4
            << "\" text-anchor=\"end\">" << format("%g", top[p] * g / 4.0) << "</text>\n";
      }
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        svg << "<text x=\"" << x_of(p, i) << "\" y=\"" << y0 + kPanelH + 16 << "\" text-anchor=\"middle\">"
            << sizes[i] << "</text>\n";
      }
      for (std::size_t s = 0; s < series.size(); ++s) {
        const std::map<int, double>& values = p == 0 ? series[s].tflops : series[s].pct;
        if (series[s].kind == Kind::GemmEx && p == 1) continue;  // 100% by definition
        std::string points;
        for (std::size_t i = 0; i < sizes.size(); ++i) {
          const auto v = values.find(sizes[i]);
          if (v == values.end()) continue;
          points += format("%.1f,", x_of(p, i)) + format("%.1f ", y0 + kPanelH - v->second / top[p] * kPanelH);
        }
        if (points.empty()) continue;  // a yardstick with no such GEMM
        svg << "<polyline fill=\"none\" stroke=\"" << colour_of(series[s], s) << "\" stroke-width=\"2\""
            << dash_of(series[s]) << " points=\"" << points << "\"/>\n";
      }
    }
    for (std::size_t s = 0; s < series.size(); ++s) {
      const double y = y0 + 6 + 18.0 * double(s);
      svg << "<line x1=\"" << kLegend << "\" y1=\"" << y << "\" x2=\"" << kLegend + 24 << "\" y2=\"" << y
          << "\" stroke=\"" << colour_of(series[s], s) << "\" stroke-width=\"2\"" << dash_of(series[s])
          << "/>\n<text x=\"" << kLegend + 30
          << "\" y=\"" << y + 4 << "\">"
          << escape(series[s].label + "  " + series[s].precision + " " + series[s].layout) << "</text>\n";
    }
  }
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace ladder
