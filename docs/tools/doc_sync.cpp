// doc_sync: keeps the code and the measured output quoted in the docs identical to their sources.
//
// A Markdown file marks each quoted block with an HTML comment on the line before its ``` fence:
//   <!-- snippet: 01_wmma_single_tile/wmma_single_tile.cuh#kernel -->
//       the lines between "// [doc:kernel]" and "// [/doc:kernel]" in that file (paths relative to the repository);
//   <!-- output: docs/results/01_wmma_single_tile_h200.txt#probe: matrix_a 16x16x16 row-major -->
//       the section of a saved program output from its "== probe: matrix_a 16x16x16 row-major ==" line up to the
//       next "== " line (trailing blank lines dropped); "#header" names the leading "# " lines; no "#..." the file;
//       "#<section> | rows: <regex>" keeps the section's heading, its column-header line and the rows the regular
//       expression finds (one kernel's rows of a results table);
//   <!-- ladder: docs/results/ladder.csv#06 -->
//       the benchmark ladder's table of chapter 06 ("#all": every chapter; "#best": each chapter's best kernel
//       beside both yardsticks), rendered from the CSV (ladder.hpp);
//   <!-- diff: 08_warp_specialized_gemm/step2_persistent.cuh -> 08_warp_specialized_gemm/step3_cluster.cuh -->
//       the unified diff (diff -u, 3 lines of context: unified_diff.hpp) from the first file to the second; either side
//       may name a region, "file#name", as a snippet does: how a walkthrough shows a step as a change of the last;
//       "A -> B (context 2)" keeps 2 lines of context instead of 3;
//   <!-- staleness: docs/results -->
//       every results file, its commit, and which of the sources it measured have changed since (source_record.hpp).
// The ladder's charts are checked the same way: docs/figures/ladder.svg (every chapter) and ladder_NN.svg (chapter NN)
// must be what ladder.hpp draws from docs/results/ladder.csv now.
// A measured number in prose is a value link: a Markdown link to the file it comes from, whose title is an ECMAScript
// regular expression with one group (or a derived value, "max: ", "min: ", "geomean: " or "count: " and a regular
// expression over every line it matches: derived_value), e.g.
//   [482.0](results/06_ldmatrix_cp_async_h200.txt "^8192x8192x8192 +4 tuned +\S+ +(\S+)")
// or, where a table row would run too long, a reference to a definition on a line of its own in the same file:
//   | step 4 | [482.0][s4] |        and        [s4]: results/06_ldmatrix_cp_async_h200.txt "^8192x8192x8192 ..."
// Exactly one line of the file (docs/results/*, or docs/external_figures.md for figures from outside the project) must
// match (or, after anchors joined by " >>> ", the first line after them: see selected_value), and the link's text must
// be what the group captured; the line it selects must not be a "# " line (a results file's provenance). And no
// measured figure (kMeasuredFigure: a rate in any spelling, a share of or margin over a yardstick, a speed-up, a time
// or a clock) may stand outside such a link, in prose, in inline code, or in a fence no marker keeps in step: a
// measured number typed by hand is an error.
// Every results file must record its commit and its sources (source_record.hpp); one that does not fails both modes.
// Usage: doc_sync check  <repository root>   exit 0 if every block matches, 1 listing each one that drifted;
//        doc_sync update <repository root>   rewrite the blocks from their sources;
//        doc_sync pick <file> <pattern>       print what a value link with that pattern selects in <file> (exit 1
//            naming why where it selects nothing or more than one line): docs/tools/levers_summary.sh uses it;
//        doc_sync record <repository root> <results file> <build dir> <commit> <target>... [--tree <dir>]
//            write the results file's `# commit:` and `# sources:` lines and its manifest, from the dependency files
//            of <target>s in <build dir> (or in any of a ':'-separated list of them); docs/tools/record_sources.sh
//            runs it with the commit git names. --tree reads the sources' bytes from <dir> instead (a checkout of
//            the commit an older run measured).
// Scans README.md, docs/*.md and docs/results/README.md. A missing file, region or section is an error in both modes
// (exit 1); bad usage exits 2.
#include "ladder.hpp"
#include "source_record.hpp"
#include "text_files.hpp"
#include "unified_diff.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

using docs_tools::read_lines;
using docs_tools::read_text;
using docs_tools::trim;

// The lines a marker names: a code region, an output section or a ladder table.
std::vector<std::string> source_lines(const fs::path& root, const std::string& kind, const std::string& target) {
  if (kind == "diff") {  // "A -> B", each side a file or a file's region: the unified diff from A to B
    const auto arrow = target.find(" -> ");
    if (arrow == std::string::npos) throw std::runtime_error("a diff marker names 'A -> B', not " + target);
    std::string from = target.substr(0, arrow), to = target.substr(arrow + 4);
    int context = 3;  // diff -u's; " (context N)" after B asks for N
    std::smatch m;
    if (std::regex_search(to, m, std::regex(R"( \(context ([0-9])\)$)"))) {
      context = std::stoi(m[1].str());
      to = to.substr(0, to.size() - m[0].length());
    }
    auto side = [&](const std::string& s) {
      return s.find('#') == std::string::npos ? read_lines(root / s) : source_lines(root, "snippet", s);
    };
    return docs_tools::unified_diff(from, side(from), to, side(to), context);
  }
  const auto hash = target.find('#');
  const std::string file = target.substr(0, hash);
  const std::string part = hash == std::string::npos ? "" : target.substr(hash + 1);
  if (kind == "ladder") {
    const ladder::Ladder l = ladder::parse_ladder(read_text(root / file));
    return part == "best" ? ladder::ladder_best(l) : ladder::ladder_table(l, part);
  }
  if (kind == "staleness") {
    if (target != "docs/results") throw std::runtime_error("a staleness marker names docs/results, not " + target);
    return source_record::staleness_lines(root);
  }
  const std::vector<std::string> lines = read_lines(root / file);
  std::vector<std::string> out;
  if (kind == "snippet") {
    const std::string begin = "// [doc:" + part + "]", end = "// [/doc:" + part + "]";
    std::size_t i = 0;
    while (i < lines.size() && trim(lines[i]) != begin) ++i;
    if (i == lines.size()) throw std::runtime_error(file + " has no region " + begin);
    for (++i; i < lines.size() && trim(lines[i]) != end; ++i) out.push_back(lines[i]);
    if (i == lines.size()) throw std::runtime_error(file + ": region " + begin + " is not closed by " + end);
    return out;
  }
  if (part.empty()) return lines;
  // "section | rows: REGEX": the section's heading, its column-header line, and only the rows the ECMAScript regular
  // expression finds (a table's rows for one kernel, say); at least one must match.
  const auto bar = part.find(" | rows: ");
  if (bar != std::string::npos) {
    const std::vector<std::string> whole = source_lines(root, kind, file + "#" + part.substr(0, bar));
    const std::regex rows(part.substr(bar + 9));
    for (std::size_t r = 0; r < whole.size(); ++r) {
      if (r < 2 || std::regex_search(whole[r], rows)) out.push_back(whole[r]);
    }
    if (out.size() < 3) throw std::runtime_error(file + ": no row of '" + part.substr(0, bar) + "' matches " +
                                                 part.substr(bar + 9));
    return out;
  }
  std::size_t i = 0;
  if (part == "header") {
    while (i < lines.size() && lines[i].rfind("# ", 0) == 0) out.push_back(lines[i++]);
  } else {
    const std::string heading = "== " + part + " ==";
    while (i < lines.size() && lines[i] != heading) ++i;
    if (i == lines.size()) throw std::runtime_error(file + " has no section '" + heading + "'");
    out.push_back(lines[i]);
    for (++i; i < lines.size() && lines[i].rfind("== ", 0) != 0; ++i) out.push_back(lines[i]);
  }
  while (!out.empty() && trim(out.back()).empty()) out.pop_back();
  if (out.empty()) throw std::runtime_error(file + ": '" + part + "' is empty");
  return out;
}

// A value link's target: a results file or the external figures, relative to the Markdown file's folder.
bool is_value_source(const fs::path& root, const fs::path& md, const std::string& url, fs::path& file) {
  const fs::path resolved = fs::weakly_canonical(md.parent_path() / url);
  const fs::path results = fs::weakly_canonical(root / "docs/results");
  const fs::path external = fs::weakly_canonical(root / "docs/external_figures.md");
  const std::string r = resolved.string(), base = results.string() + "/";
  if (resolved == external || r.compare(0, base.size(), base) == 0) {
    file = resolved;
    return true;
  }
  return false;
}

// What the value link's pattern selects in `file`: the group of the line it picks. A pattern is one regular
// expression, which exactly one line of the file must match; or anchors and a final expression joined by " >>> ",
// each searched from the line after the previous one's first match ("4096 x 4096 x 4096 >>> ^s8->s32 +TN +(\\S+)":
// the first s8 TN row after the first line that names 4096^3), for files that print the same rows once per size.
// Errors name the problem.
std::string selected_value(const fs::path& file, const std::string& pattern, const std::string& where);

// A derived value: "max: <regex>", "min: <regex>", "geomean: <regex>" or "count: <regex>" aggregates the group of
// every line the regex matches (at least one; no anchors), so that a sentence that claims an extreme, a mean or a
// count states what the file holds now, not what one row held when it was written. max and min give the extreme
// line's text as it stands; geomean is printed with the decimals of the first value; count is the number of lines.
// Returns false where the pattern names no aggregate.
bool derived_value(const fs::path& file, const std::string& pattern, const std::string& where, std::string& value) {
  static const std::regex kind(R"re(^(max|min|geomean|count): (.*)$)re");
  std::smatch k;
  if (!std::regex_match(pattern, k, kind)) return false;
  std::regex re;
  try {
    re = std::regex(k[2].str());
  } catch (const std::regex_error& e) {
    throw std::runtime_error(where + ": bad pattern \"" + k[2].str() + "\": " + e.what());
  }
  std::vector<std::string> texts;
  for (const std::string& line : read_lines(file)) {
    std::smatch m;
    if (line.rfind('#', 0) == 0 || !std::regex_search(line, m, re)) continue;  // "# " lines are provenance
    if (m.size() < 2) throw std::runtime_error(where + ": pattern \"" + k[2].str() + "\" has no group");
    texts.push_back(m[1].str());
  }
  if (texts.empty())
    throw std::runtime_error(where + ": pattern \"" + pattern + "\" matches no line of " + file.string());
  if (k[1] == "count") {
    value = std::to_string(texts.size());
    return true;
  }
  std::vector<double> numbers;
  for (const std::string& t : texts) {
    try {
      std::size_t used = 0;
      numbers.push_back(std::stod(t, &used));
      if (used != t.size()) throw std::invalid_argument(t);
    } catch (const std::logic_error&) {
      throw std::runtime_error(where + ": pattern \"" + pattern + "\" captures '" + t + "', not a number");
    }
  }
  if (k[1] == "geomean") {
    double log_sum = 0.0;
    for (double x : numbers) {
      if (x <= 0.0) throw std::runtime_error(where + ": a geomean of a value <= 0 in \"" + pattern + "\"");
      log_sum += std::log(x);
    }
    const auto dot = texts[0].find('.');
    const int decimals = dot == std::string::npos ? 0 : int(texts[0].size() - dot - 1);
    std::ostringstream out;
    out.setf(std::ios::fixed);
    out.precision(decimals);
    out << std::exp(log_sum / double(numbers.size()));
    value = out.str();
    return true;
  }
  std::size_t pick = 0;
  for (std::size_t i = 1; i < numbers.size(); ++i)
    if (k[1] == "max" ? numbers[i] > numbers[pick] : numbers[i] < numbers[pick]) pick = i;
  value = texts[pick];
  return true;
}

std::string selected_value(const fs::path& file, const std::string& pattern, const std::string& where) {
  if (std::string derived; derived_value(file, pattern, where, derived)) return derived;
  std::vector<std::string> parts;
  for (std::size_t from = 0;;) {
    const auto at = pattern.find(" >>> ", from);
    parts.push_back(pattern.substr(from, at == std::string::npos ? std::string::npos : at - from));
    if (at == std::string::npos) break;
    from = at + 5;
  }
  std::vector<std::regex> res;
  for (const std::string& part : parts) {
    try {
      res.emplace_back(part);
    } catch (const std::regex_error& e) {
      throw std::runtime_error(where + ": bad pattern \"" + part + "\": " + e.what());
    }
  }
  const std::vector<std::string> lines = read_lines(file);
  std::size_t start = 0;
  for (std::size_t p = 0; p + 1 < res.size(); ++p) {
    while (start < lines.size() && !std::regex_search(lines[start], res[p])) ++start;
    if (start == lines.size()) {
      throw std::runtime_error(where + ": anchor \"" + parts[p] + "\" matches no line of " + file.string());
    }
    ++start;
  }
  std::string value;
  int matches = 0;
  for (std::size_t i = start; i < lines.size(); ++i) {
    std::smatch m;
    if (!std::regex_search(lines[i], m, res.back())) continue;
    if (m.size() < 2) throw std::runtime_error(where + ": pattern \"" + parts.back() + "\" has no group");
    // A "# " line of a results file is its provenance (command, device, commit), not a measurement.
    if (matches == 0 && lines[i].rfind('#', 0) == 0) {
      throw std::runtime_error(where + ": pattern \"" + pattern + "\" selects a '#' comment line of " +
                               file.string() + "; a value comes from a measured line");
    }
    if (matches++ == 0) value = m[1].str();
    if (res.size() > 1) break;  // after anchors: the first match
  }
  if (matches != 1) {
    throw std::runtime_error(where + ": pattern \"" + pattern + "\" matches " + std::to_string(matches) + " lines of " +
                             file.string() + ", not one");
  }
  return value;
}

// A figure in the units the project measures, a share of or a margin over a yardstick, a speed-up, or a time or clock
// of a run: typed into prose or inline code, or into a fence no marker keeps in step, it could drift unseen. Rates
// in any spelling ("743.5 TFLOPS", "0.79 PFLOP/s", "786.4-TFLOP/s"); "100.1 % of cuBLAS", "beats cuBLAS by 3.2%";
// "1.03x"; "12.6 us", "0.1848 ms", "1455 MHz".
const std::regex kMeasuredFigure(
    R"re(\b\d[\d,.]*[ -]?(TFLOP/s|TFLOPS|PFLOP/s|PFLOPS|GFLOP/s|GFLOPS|TOPS|GB/s|TB/s)(?![A-Za-z]))re"
    R"re(|\b\d[\d.]*\s?% (of|above|below|over|under|beyond) (cuBLAS|cublasGemmEx|cuBLASLt))re"
    R"re(|(cuBLAS|cublasGemmEx|cuBLASLt)\S* by \d[\d.]*\s?%)re"
    R"re(|\b\d+\.\d+\s?x\b)re"
    R"re(|\b\d[\d.]*[ -]?(us|ns|ms|MHz|GHz|microseconds?|milliseconds?|nanoseconds?)\b)re");

// One line's measured figures (kMeasuredFigure) reported as drift: `text` with the line's value links taken out.
int report_typed_figures(const std::string& text, const std::string& where, const char* place) {
  int found = 0;
  for (std::sregex_iterator it(text.begin(), text.end(), kMeasuredFigure), end; it != end; ++it) {
    ++found;
    std::cout << where << ": '" << (*it)[0].str() << "' is a measured figure typed into " << place
              << "; make it a value link to its results file (or to docs/external_figures.md), or quote the file "
              << "through a marker\n";
  }
  return found;
}

// Checks (or rewrites) the value links of one prose line (outside code fences); returns how many differ. Also
// reports any measured figure left outside a value link (as a drift: the check fails, update cannot fix it).
// A reference-style value link's definition, on a line of its own: [label]: results/file.txt "pattern". Tables use
// them, since a row of inline value links would run far past the docs' 120 columns.
const std::regex kLinkDefinition(R"re(^\[([^\]]+)\]: +(\S+) +"([^"]+)" *$)re");
struct LinkTarget {
  std::string url, pattern;
};
using LinkDefinitions = std::map<std::string, LinkTarget>;

int sync_values(const fs::path& root, const fs::path& md, std::string& line, const std::string& where,
                const LinkDefinitions& definitions) {
  // [value](file "pattern"), or [value][label] with the label defined elsewhere in the file (kLinkDefinition).
  static const std::regex link(R"re(\[([^\]]*)\](?:\(([^ )]+) "([^"]+)"\)|\[([^\]]+)\]))re");
  static const std::regex number(R"re(^[-+]?[0-9][0-9.,]*$)re"), label(R"re(^[A-Za-z][A-Za-z0-9_-]+$)re");
  // Inline code (`...`) is an example, not a value: links inside it are left alone. Its text is linted like prose.
  std::vector<bool> in_code(line.size(), false);
  for (std::size_t i = 0, open = std::string::npos; i < line.size(); ++i) {
    if (line[i] != '`') continue;
    if (open == std::string::npos) {
      open = i;
    } else {
      for (std::size_t j = open; j <= i; ++j) in_code[j] = true;
      open = std::string::npos;
    }
  }
  auto prose = [&](std::size_t from, std::size_t to) { return line.substr(from, to - from) + " "; };
  int drifted = 0;
  std::string out, outside;
  std::size_t rest = 0;
  for (std::sregex_iterator it(line.begin(), line.end(), link), end; it != end; ++it) {
    const std::smatch& m = *it;
    const std::size_t at = static_cast<std::size_t>(m.position(0)), after = at + m.length(0);
    if (in_code[at]) continue;  // an example, copied below
    const bool by_reference = m[4].matched;
    LinkTarget target{m[2].str(), m[3].str()};
    if (by_reference) {
      const auto d = definitions.find(m[4].str());
      if (d == definitions.end()) {
        // A number in a reference to no definition renders as plain brackets: a value link with its target lost.
        // (Labels start with a letter, so an index in prose, "A[2][0]", is not taken for one.)
        if (std::regex_match(m[1].str(), number) && std::regex_match(m[4].str(), label)) {
          ++drifted;
          std::cout << where << ": value '" << m[1].str() << "' links to [" << m[4].str() << "], which no line of "
                    << "this file defines\n";
        }
        continue;
      }
      target = d->second;
    }
    fs::path file;
    if (!is_value_source(root, md, target.url, file)) continue;  // plain text: copied below
    out += line.substr(rest, at - rest);
    outside += prose(rest, at);
    rest = after;
    const std::string value = selected_value(file, target.pattern, where);
    if (value != m[1].str()) {
      ++drifted;
      std::cout << where << ": value '" << m[1].str() << "' differs from " << target.url << "'s '" << value << "'\n";
    }
    out += "[" + value + "]";
    out += by_reference ? "[" + m[4].str() + "]" : "(" + target.url + " \"" + target.pattern + "\")";
  }
  out += line.substr(rest);
  outside += prose(rest, line.size());
  drifted += report_typed_figures(outside, where, "prose");
  line = out;
  return drifted;
}

// Checks (or rewrites) one Markdown file; returns the number of blocks and values that differ from their sources.
int sync_file(const fs::path& root, const fs::path& md, bool update) {
  std::vector<std::string> lines = read_lines(md);
  std::vector<std::string> result;
  int drifted = 0;
  bool in_fence = false;
  LinkDefinitions definitions;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("```", 0) == 0) in_fence = !in_fence;
    std::smatch d;
    if (in_fence || !std::regex_match(lines[i], d, kLinkDefinition)) continue;
    // Markdown keeps a label's first definition; a second is a mistake that would point a number elsewhere.
    if (!definitions.emplace(d[1].str(), LinkTarget{d[2].str(), d[3].str()}).second) {
      ++drifted;
      std::cout << md.string() << ":" << i + 1 << ": the label [" << d[1].str() << "] is defined twice\n";
    }
  }
  in_fence = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("```", 0) == 0) in_fence = !in_fence;
    // A fence no marker precedes (markers' fences are consumed below) is typed text: no measured figure may stand in
    // it either.
    if (in_fence && lines[i].rfind("```", 0) != 0) {
      drifted += report_typed_figures(lines[i], md.string() + ":" + std::to_string(i + 1), "a fence without a marker");
    }
    if (!in_fence && lines[i].rfind("```", 0) != 0 && lines[i].rfind("<!-- ", 0) != 0 &&
        !std::regex_match(lines[i], kLinkDefinition)) {
      drifted += sync_values(root, md, lines[i], md.string() + ":" + std::to_string(i + 1), definitions);
    }
    result.push_back(lines[i]);
    const std::string t = trim(lines[i]);
    std::string kind;
    for (const char* k : {"snippet", "output", "ladder", "staleness", "diff"}) {
      const std::string open = std::string("<!-- ") + k + ": ";
      if (t.rfind(open, 0) == 0 && t.size() > open.size() + 4 && t.compare(t.size() - 4, 4, " -->") == 0) kind = k;
    }
    if (kind.empty()) continue;
    const std::string target = t.substr(kind.size() + 7, t.size() - kind.size() - 11);
    const std::string where = md.string() + ":" + std::to_string(i + 1);
    if (i + 1 >= lines.size() || lines[i + 1].rfind("```", 0) != 0) {
      throw std::runtime_error(where + ": a ``` fence must follow the marker");
    }
    std::size_t close = i + 2;
    while (close < lines.size() && lines[close].rfind("```", 0) != 0) ++close;
    if (close == lines.size()) throw std::runtime_error(where + ": the ``` fence is not closed");
    const std::vector<std::string> current(lines.begin() + i + 2, lines.begin() + close);
    const std::vector<std::string> wanted = source_lines(root, kind, target);
    if (current != wanted) {
      ++drifted;
      std::cout << where << ": " << kind << " '" << target << "' differs from its source\n";
    }
    result.push_back(lines[i + 1]);
    result.insert(result.end(), wanted.begin(), wanted.end());
    result.push_back(lines[close]);
    i = close;
    in_fence = false;  // the marker's block, fences included, is done
  }
  if (update && drifted > 0) {
    std::ofstream out(md);
    for (const std::string& line : result) out << line << '\n';
    if (!out) throw std::runtime_error("cannot write " + md.string());
  }
  return drifted;
}

// Checks (or rewrites) the ladder's charts; returns how many differ from what the CSV draws now.
int sync_ladder_figures(const fs::path& root, bool update) {
  const fs::path csv = root / "docs/results/ladder.csv";
  if (!fs::exists(csv)) return 0;
  const ladder::Ladder l = ladder::parse_ladder(read_text(csv));
  std::vector<std::pair<std::string, std::string>> figures = {{"ladder.svg", ladder::ladder_svg(l, "all")}};
  for (const std::string& ch : ladder::chapters_of(l, "all")) {
    figures.push_back({"ladder_" + ch + ".svg", ladder::ladder_svg(l, ch)});
  }
  int drifted = 0;
  for (const auto& [name, svg] : figures) {
    const fs::path path = root / "docs/figures" / name;
    if (fs::exists(path) && read_text(path) == svg) continue;
    ++drifted;
    std::cout << path.string() << ": differs from what docs/results/ladder.csv draws\n";
    if (update) {
      std::ofstream out(path);
      if (!(out << svg)) throw std::runtime_error("cannot write " + path.string());
    }
  }
  return drifted;
}

// doc_sync record: see the header. Returns the exit code.
int record(int argc, char** argv) {
  std::vector<std::string> args(argv + 2, argv + argc), targets;
  fs::path tree;
  for (std::size_t i = 4; i < args.size(); ++i) {
    if (args[i] == "--tree" && i + 1 < args.size()) {
      tree = args[++i];
    } else {
      targets.push_back(args[i]);
    }
  }
  if (args.size() < 5 || targets.empty()) {
    std::cerr << "usage: doc_sync record <repository root> <results file> <build dir> <commit> <target>... "
              << "[--tree <dir>]\n";
    return 2;
  }
  const fs::path root = args[0];
  const fs::path results = fs::weakly_canonical(args[1]);
  if (results.parent_path() != fs::weakly_canonical(root / "docs/results") || !fs::is_regular_file(results)) {
    std::cerr << "error: " << args[1] << " is not a file of " << (root / "docs/results").string() << "\n";
    return 2;
  }
  source_record::write_record(root, results, source_record::build_list(args[2]), args[3], targets,
                              tree.empty() ? root : tree);
  const source_record::Record r = source_record::read_record(results.parent_path(), results.filename().string());
  std::cout << "recorded " << results.filename().string() << ": commit " << r.commit << ", " << r.entries.size()
            << " source files of " << targets.size() << " target(s) in " << r.manifest << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  try {
    if (mode == "record") return record(argc, argv);
    if (mode == "pick" && argc == 4) {  // what a value link with this pattern would show: for summaries of a file
      std::cout << selected_value(argv[2], argv[3], std::string(argv[2])) << "\n";
      return 0;
    }
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  if (argc != 3 || (mode != "check" && mode != "update")) {
    std::cerr << "usage: doc_sync check|update <repository root>, doc_sync pick <file> <pattern>, or doc_sync record "
                 "(see doc_sync.cpp)\n";
    return 2;
  }
  const bool update = mode == "update";
  const fs::path root = argv[2];
  try {
    source_record::staleness_lines(root);  // every results file records its commit and sources, whoever quotes them
    std::vector<fs::path> files = {root / "README.md", root / "docs/results/README.md"};
    for (const auto& entry : fs::directory_iterator(root / "docs")) {
      if (entry.path().extension() == ".md") files.push_back(entry.path());
    }
    int drifted = 0;
    for (const fs::path& md : files) drifted += sync_file(root, md, update);
    drifted += sync_ladder_figures(root, update);
    if (drifted > 0 && !update) {
      std::cout << drifted << " block(s) or figure(s) out of date; run: cmake --build <build dir> --target "
                << "update_docs\n";
      return 1;
    }
    std::cout << (update ? "updated " : "checked ") << files.size() << " Markdown files: "
              << (update ? std::to_string(drifted) + " block(s) or figure(s) rewritten"
                      : "every quoted block and ladder figure matches its source")
              << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
