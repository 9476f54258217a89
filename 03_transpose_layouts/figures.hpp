// Chapter 03 -- the chapter's figures, generated rather than drawn: the row-major identity, and the memory address
// behind each lane's fragment elements for each layout.
// Units: elements; SVG pixels. Errors: none (address_map throws std::out_of_range for a map with slots outside its
// tile, via tc::LaneMap::at).
#pragma once

#include "tc/lane_map.hpp"
#include "tc/layouts/tags.hpp"

#include <cstdio>
#include <string>

// A fragment's lane map redrawn in memory order: for a tile stored as Layout with leading dimension ld, element
// (row, col) of the tile lives at offset = Layout::offset(row, col, ld), which is line offset / ld, position
// offset % ld. The result is a LaneMap whose rows are the tile's memory lines (columns for col_major, rows for
// row_major) and whose columns are positions along a line, so its grid reads like memory: one row per contiguous
// run of ld elements.
template <typename Layout>
tc::LaneMap address_map(const tc::LaneMap& fragment, int ld) {
  const int lines = Layout::line_count(fragment.rows(), fragment.cols());
  tc::LaneMap out(lines, ld, fragment.slots());
  for (int lane = 0; lane < tc::kWarpSize; ++lane)
    for (int slot = 0; slot < fragment.slots(); ++slot) {
      const tc::Coord c = fragment.at(lane, slot);
      const std::size_t offset = Layout::offset(c.row, c.col, ld);
      out.at(lane, slot) = {int(offset / ld), int(offset % ld)};
    }
  return out;
}

// The row-major identity as a picture: top, the caller's row-major C = A * B with the direction memory runs in each
// matrix; bottom, the same three buffers read column-major, which are C^T = B^T * A^T. Box sizes follow m = 3, n = 4,
// k = 2 units so that every matrix has a different shape and the swap is visible.
inline std::string row_major_identity_svg() {
  // 36 px per unit of size; 100 px between boxes leaves room for the "=" and "*" and for labels wider than a box.
  constexpr int kUnit = 36, kGap = 100, kLeft = 30;
  std::string out;
  char buf[512];
  auto text = [&](int x, int y, const char* s, const char* anchor = "start") {
    std::snprintf(buf, sizeof buf, "<text x=\"%d\" y=\"%d\" text-anchor=\"%s\">%s</text>\n", x, y, anchor, s);
    out += buf;
  };
  // A box of rows x cols units at (x, y), with arrows along the direction memory is contiguous.
  auto box = [&](int x, int y, int rows, int cols, bool row_major, const char* name, const char* fill) {
    std::snprintf(buf, sizeof buf,
                  "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"black\"/>\n", x, y,
                  cols * kUnit, rows * kUnit, fill);
    out += buf;
    const int runs = row_major ? rows : cols;
    for (int i = 0; i < runs; ++i) {
      const int x0 = row_major ? x + 6 : x + i * kUnit + kUnit / 2, y0 = row_major ? y + i * kUnit + kUnit / 2 : y + 6;
      const int x1 = row_major ? x + cols * kUnit - 8 : x0, y1 = row_major ? y0 : y + rows * kUnit - 8;
      std::snprintf(buf, sizeof buf,
                    "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#555\" marker-end=\"url(#arrow)\"/>\n", x0,
                    y0, x1, y1);
      out += buf;
    }
    text(x + cols * kUnit / 2, y + rows * kUnit + 18, name, "middle");
  };
  constexpr int m = 3, n = 4, k = 2;
  const int top = 60, bottom = top + m * kUnit + 100;
  const int width = 800;  // the longest caption, 96 characters at about 7.8 px each
  std::snprintf(buf, sizeof buf,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"monospace\" "
                "font-size=\"13\">\n<defs><marker id=\"arrow\" markerWidth=\"8\" markerHeight=\"8\" refX=\"6\" "
                "refY=\"3\" orient=\"auto\"><path d=\"M0,0 L6,3 L0,6 z\" fill=\"#555\"/></marker></defs>\n",
                width, bottom + n * kUnit + 40);
  out += buf;
  // One line of the picture: X = Y * Z, three boxes of (rows, cols) units laid out left to right at height y.
  struct Box {
    int rows, cols;
    const char* name;
    const char* fill;
  };
  auto equation = [&](int y, bool row_major, Box x_box, Box y_box, Box z_box) {
    int x = kLeft;
    const char* ops[] = {"=", "*"};
    const Box boxes[] = {x_box, y_box, z_box};
    for (int i = 0; i < 3; ++i) {
      if (i > 0) text(x - kGap / 2, y + x_box.rows * kUnit / 2, ops[i - 1], "middle");
      box(x, y, boxes[i].rows, boxes[i].cols, row_major, boxes[i].name, boxes[i].fill);
      x += boxes[i].cols * kUnit + kGap;
    }
  };
  const char* kColorC = "#f6d7a7";
  const char* kColorA = "#b7d7f0";
  const char* kColorB = "#c5e8c0";
  text(kLeft, 22, "the caller's row-major buffers (arrows: the direction memory runs):");
  equation(top, true, {m, n, "C  (m x n, ldc)", kColorC}, {m, k, "A  (m x k, lda)", kColorA},
           {k, n, "B  (k x n, ldb)", kColorB});
  text(kLeft, bottom - 28,
       "the same bytes read column-major (cuBLAS, this chapter's kernel): swap A and B, and m and n:");
  equation(bottom, false, {n, m, "C^T (n x m, ldc)", kColorC}, {n, k, "B^T (n x k, ldb)", kColorB},
           {k, m, "A^T (k x m, lda)", kColorA});
  out += "</svg>\n";
  return out;
}
