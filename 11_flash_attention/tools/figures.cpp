// 11_figures: writes chapter 11's figures (figures.hpp) as SVG files, the ones committed in docs/figures/ (11_*.svg).
// Host only: it runs on any machine.
// Usage: 11_figures [--out DIR] (default docs/figures). Exit codes: README.md, "Exit codes" (2 for a bad flag or a
// file that cannot be written).
#include "tools/figures.hpp"

#include "tc/main.hpp"

int main(int argc, char** argv) {
  return tc::figure_tool_main(argc, argv, "11_figures",
                              "Writes chapter 11's figures: S's accumulator and P's A operand, the same registers; the "
                              "causal mask's key tiles.",
                              chapter_figures);
}
