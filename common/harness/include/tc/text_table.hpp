// Text tables for the binaries' results: columns as wide as their widest cell, text left-aligned and numbers
// right-aligned, and fixed(), the numbers' format. Host only. Errors: none (a row with fewer cells than columns is the
// caller's bug: std::out_of_range from std::vector::at).
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace tc {

// value with `decimals` digits after the point, as printf's %.*f writes it.
inline std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

// A table whose columns are as wide as their widest cell: text left-aligned, numbers right-aligned.
class Table {
 public:
  void column(std::string header, bool numeric) { columns_.push_back({std::move(header), numeric}); }
  void row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  std::string format() const {
    std::vector<std::size_t> width(columns_.size());
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      width[c] = columns_[c].header.size();
      for (const auto& r : rows_) width[c] = std::max(width[c], r.at(c).size());
    }
    auto line = [&](auto cell) {
      std::string out;
      for (std::size_t c = 0; c < columns_.size(); ++c) {
        const std::string text = cell(c);
        const std::string pad(width[c] - text.size(), ' ');
        out += (c > 0 ? "  " : "") + (columns_[c].numeric ? pad + text : text + pad);
      }
      while (!out.empty() && out.back() == ' ') out.pop_back();
      return out + "\n";
    };
    std::string out = line([&](std::size_t c) { return columns_[c].header; });
    for (const auto& r : rows_) out += line([&](std::size_t c) { return r.at(c); });
    return out;
  }

 private:
  struct Column {
    std::string header;
    bool numeric;
  };
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace tc
