// The few SVG primitives the chapters' figures are drawn with (tools/figures.hpp of chapters 06 and 07): text, a
// filled cell, the document around a body, and a palette of 8 light colours for chunks and stages.
// Units: pixels. Host code. Errors: none.
// Source: W3C, "Scalable Vector Graphics (SVG) 1.1", sections "Text", "Basic Shapes".
#pragma once

#include <algorithm>
#include <string>
#include <vector>

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

// Where left-anchored text `s` at x ends, in the documents' monospace font of font_size pixels: a monospace face
// advances about 0.6 em a character. For sizing a figure to its captions, so that none is cut at the right edge.
inline int text_end(int x, const std::string& s, int font_size = 11) {
  return x + (6 * font_size * int(s.size()) + 9) / 10;
}

// Calls f(x, font_size, text) for each left-anchored <text> of an SVG body or document (texts with a text-anchor are
// centred or right-aligned on purpose, and are not measured), its XML escapes counted as the one character each draws.
template <typename F>
void for_each_left_text(const std::string& svg, F&& f) {
  for (std::size_t at = svg.find("<text x=\""); at != std::string::npos; at = svg.find("<text x=\"", at + 1)) {
    const std::size_t open_end = svg.find('>', at), close = svg.find("</text>", at);
    const std::string tag = svg.substr(at, open_end - at);
    if (tag.find("text-anchor") != std::string::npos) continue;
    int font_size = 11;
    if (const auto fs = tag.find("font-size=\""); fs != std::string::npos) font_size = std::stoi(tag.substr(fs + 11));
    std::string content = svg.substr(open_end + 1, close - open_end - 1);
    for (const std::string escape : {"&lt;", "&gt;", "&amp;"})
      for (std::size_t e = content.find(escape); e != std::string::npos; e = content.find(escape, e + 1))
        content.replace(e, escape.size(), "_");
    f(std::stoi(tag.substr(9)), font_size, content);
  }
}

// The left-anchored texts of an SVG document that run past its width (text_end), as "x: text" lines: what the
// chapters' figure tests hold to none, so that no figure cuts a caption or a label.
inline std::vector<std::string> texts_past_the_edge(const std::string& svg) {
  const auto width_at = svg.find(" width=\"");
  if (width_at == std::string::npos) return {"no width"};
  const int width = std::stoi(svg.substr(width_at + 8));
  std::vector<std::string> past;
  for_each_left_text(svg, [&](int x, int font_size, const std::string& text) {
    if (text_end(x, text, font_size) > width) past.push_back(std::to_string(x) + ": " + text);
  });
  return past;
}

// A standalone w x h document around `body`, on white, in an 11-pixel monospace font.
inline std::string document(int w, int h, const std::string& body) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(w) + "\" height=\"" +
         std::to_string(h) + "\" viewBox=\"0 0 " + std::to_string(w) + " " + std::to_string(h) +
         "\" font-family=\"monospace\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n" +
         body + "</svg>\n";
}

// document(), at least min_w wide and as wide as its widest left-anchored text and a 10-pixel margin: for figures
// whose captions are longer than what they draw.
inline std::string fitted_document(int min_w, int h, const std::string& body) {
  int w = min_w;
  for_each_left_text(body, [&](int x, int font_size, const std::string& text) {
    w = std::max(w, text_end(x, text, font_size) + 10);
  });
  return document(w, h, body);
}

// Colour c % 8 of a light qualitative palette (ColorBrewer "Pastel1"), for chunk or stage c.
inline const char* colour(int c) {
  static const char* kColours[] = {"#fbb4ae", "#b3cde3", "#ccebc5", "#decbe4", "#fed9a6", "#ffffcc", "#e5d8bd",
                                   "#fddaec"};
  return kColours[c % 8];
}

}  // namespace tc::svg
