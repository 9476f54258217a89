// 09_figures: writes chapter 09's figures (figures.hpp) as SVG files, the ones committed in docs/figures/ (09_*.svg
// but 09_error_vs_k.svg, which the chapter's binary measures). Host only: it runs on any machine.
// Usage: 09_figures [--out DIR] (default docs/figures). Exit codes: README.md, "Exit codes" (2 for a bad flag or a
// file that cannot be written).
#include "tools/figures.hpp"

#include "tc/main.hpp"

int main(int argc, char** argv) {
  return tc::figure_tool_main(argc, argv, "09_figures",
                              "Writes chapter 09's k32 slice, promotion timeline and block-scale map figures as SVG.",
                              chapter_figures);
}
