// The few SVG primitives the chapters' figures are drawn with (tools/figures.hpp of chapters 06 and 07): text, a
// filled cell, the document around a body, and a palette of 8 light colours for chunks and stages.
// Units: pixels. Host code. Errors: none.
// Source: W3C, "Scalable Vector Graphics (SVG) 1.1", sections "Text", "Basic Shapes".
#pragma once

#include <string>

namespace tc::svg {

// `s` at (x, y), its XML escaped ("wait_group<2>" must not open an element); `extra` adds attributes.
inline std::string text(int x, int y, const std::string& s, const char* extra = "") {
  std::string escaped;
  for (char c : s) escaped += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
  return "<text x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) + "\"" + extra + ">" + escaped +
         "</text>\n";
}

// A w x h cell at (x, y) filled with `fill`, outlined in grey.
inline std::string rect(int x, int y, int w, int h, const char* fill) {
  return "<rect x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) + "\" width=\"" + std::to_string(w) +
         "\" height=\"" + std::to_string(h) + "\" fill=\"" + fill + "\" stroke=\"#555\"/>\n";
}

// A dashed vertical red line from (x, y0) to (x, y1): a barrier in a timeline.
inline std::string barrier_line(int x, int y0, int y1) {
  return "<line x1=\"" + std::to_string(x) + "\" y1=\"" + std::to_string(y0) + "\" x2=\"" + std::to_string(x) +
         "\" y2=\"" + std::to_string(y1) + "\" stroke=\"#c00\" stroke-dasharray=\"4 3\"/>\n";
}

// A standalone w x h document around `body`, on white, in an 11-pixel monospace font.
inline std::string document(int w, int h, const std::string& body) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(w) + "\" height=\"" +
         std::to_string(h) + "\" viewBox=\"0 0 " + std::to_string(w) + " " + std::to_string(h) +
         "\" font-family=\"monospace\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n" +
         body + "</svg>\n";
}

// Colour c % 8 of a light qualitative palette (ColorBrewer "Pastel1"), for chunk or stage c.
inline const char* colour(int c) {
  static const char* kColours[] = {"#fbb4ae", "#b3cde3", "#ccebc5", "#decbe4", "#fed9a6", "#ffffcc", "#e5d8bd",
                                   "#fddaec"};
  return kColours[c % 8];
}

}  // namespace tc::svg
