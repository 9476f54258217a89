// 08_figures: writes chapter 08's figures (figures.hpp) as SVG files, the ones committed in docs/figures/ (08_*.svg).
// Host only: it runs on any machine.
// Usage: 08_figures [--out DIR] (default docs/figures). Exit codes: README.md, "Exit codes" (2 for a bad flag or a
// file that cannot be written).
#include "tools/figures.hpp"

#include "tc/main.hpp"

int main(int argc, char** argv) {
  return tc::figure_tool_main(argc, argv, "08_figures",
                              "Writes chapter 08's producer/consumer timeline and tile-order figures as SVG.",
                              chapter_figures);
}
