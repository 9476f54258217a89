// 06_figures: writes chapter 06's figures (figures.hpp) as SVG files, the ones committed in docs/figures/ (06_*.svg).
// Host only: it runs on any machine.
// Usage: 06_figures [--out DIR] (default docs/figures). Exit codes: README.md, "Exit codes" (2 for a bad flag or a
// file that cannot be written).
#include "figures.hpp"

#include "tc/main.hpp"

int main(int argc, char** argv) {
  return tc::figure_tool_main(argc, argv, "06_figures",
                              "Writes chapter 06's ldmatrix, bank, swizzle and pipeline figures as SVG.",
                              chapter_figures);
}
