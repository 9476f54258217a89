// A unified diff of two line lists, as `diff -u` prints one: what doc_sync's `<!-- diff: A -> B -->` marker shows, so
// that a walkthrough presents a step as the change over the step before it, generated from the code, never copied.
//
// unified_diff(old_name, old_lines, new_name, new_lines, context)
//     "--- old_name", "+++ new_name", then hunks "@@ -a,b +c,d @@" of " " (kept), "-" (removed) and "+" (added) lines
//     with `context` kept lines around each change; hunks whose context would touch or overlap are merged. Equal
//     inputs give no lines at all. The edit script is a longest common subsequence of whole lines (no whitespace
//     folding), the smallest diff there is; ties prefer removals before additions, as diff does.
// changed_lines(diff)  the number of "-" and "+" lines of a diff, headers excluded: what a step's size is counted in.
// Host C++ only. Cost: O(old x new) time and memory, fine for the few hundred lines of a step's file.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

namespace docs_tools {

inline std::vector<std::string> unified_diff(const std::string& old_name, const std::vector<std::string>& a,
                                             const std::string& new_name, const std::vector<std::string>& b,
                                             int context = 3) {
  const std::size_t n = a.size(), m = b.size();
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
  std::vector<std::vector<int>> lcs(n + 1, std::vector<int>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  struct Op {
    char kind;  // ' ', '-', '+'
    std::size_t i, j;  // positions in a and b before this line
  };
  std::vector<Op> ops;
  std::size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      ops.push_back({' ', i++, j++});
    } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      ops.push_back({'-', i++, j});
    } else {
      ops.push_back({'+', i, j++});
    }
  }
  std::vector<std::string> out;
  std::size_t k = 0;
  while (k < ops.size()) {
    while (k < ops.size() && ops[k].kind == ' ') ++k;
    if (k == ops.size()) break;
    // A hunk: from `context` kept lines before this change to `context` after its last change, where no run of more
    // than 2 x context kept lines separates two changes.
    const std::size_t begin = k >= std::size_t(context) ? k - context : 0;
    std::size_t end = k, kept = 0;
    for (std::size_t x = k; x < ops.size(); ++x) {
      if (ops[x].kind == ' ') {
        if (++kept > 2 * std::size_t(context)) break;
      } else {
        kept = 0;
        end = x + 1;
      }
    }
    end = std::min(ops.size(), end + context);
    std::size_t old_count = 0, new_count = 0;
    for (std::size_t x = begin; x < end; ++x) {
      if (ops[x].kind != '+') ++old_count;
      if (ops[x].kind != '-') ++new_count;
    }
    if (out.empty()) {
      out.push_back("--- " + old_name);
      out.push_back("+++ " + new_name);
    }
    // diff -u's numbering: 1-based first line, or the line before an empty range.
    const std::size_t old_first = ops[begin].i + (old_count > 0 ? 1 : 0);
    const std::size_t new_first = ops[begin].j + (new_count > 0 ? 1 : 0);
    auto range = [](std::size_t first, std::size_t count) {  // diff -u leaves out a count of 1
      return std::to_string(first) + (count == 1 ? "" : "," + std::to_string(count));
    };
    out.push_back("@@ -" + range(old_first, old_count) + " +" + range(new_first, new_count) + " @@");
    for (std::size_t x = begin; x < end; ++x) {
      const std::string& text = ops[x].kind == '+' ? b[ops[x].j] : a[ops[x].i];
      out.push_back(std::string(1, ops[x].kind) + text);
    }
    k = end;
  }
  return out;
}

inline int changed_lines(const std::vector<std::string>& diff) {
  int changed = 0;
  for (std::size_t x = 2; x < diff.size(); ++x)  // past the "---" and "+++" headers
    if (!diff[x].empty() && (diff[x][0] == '-' || diff[x][0] == '+')) ++changed;
  return changed;
}

}  // namespace docs_tools
