// 07_figures: writes chapter 07's figures (figures.hpp) as SVG files, the ones committed in docs/figures/ (07_*.svg).
// Host only: it runs on any machine.
// Usage: 07_figures [--out DIR] (default docs/figures). Exit codes: README.md, "Exit codes" (2 for a bad flag or a
// file that cannot be written).
#include "tools/figures.hpp"

#include "tc/main.hpp"

int main(int argc, char** argv) {
  return tc::figure_tool_main(argc, argv, "07_figures",
                              "Writes chapter 07's swizzle-mode, wgmma accumulator and mbarrier ring figures as SVG.",
                              chapter_figures);
}
