// 10_figures: writes chapter 10's figures (tools/figures.hpp) as SVG files, the ones committed in docs/figures/
// (10_*.svg). Host only: it runs on any machine (a CUDA source because the step headers it draws from hold kernels).
// Usage: 10_figures [--out DIR] (default docs/figures). Exit codes: README.md, "Exit codes" (2 for a bad flag or a
// file that cannot be written).
#include "tools/figures.hpp"

#include "tc/main.hpp"

int main(int argc, char** argv) {
  return tc::figure_tool_main(argc, argv, "10_figures",
                              "Writes chapter 10's waves, swap-AB, split-K, stream-K, MoE and choice figures as SVG.",
                              chapter_figures);
}
