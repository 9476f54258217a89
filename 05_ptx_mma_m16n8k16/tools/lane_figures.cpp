// 05_lane_figures: writes chapter 05's lane diagrams (lane_figures.hpp) as SVG files, the ones committed in
// docs/figures/ (05_mma_m16n8k16_{a,b,c}.svg). Host only: it runs on any machine.
// Usage: 05_lane_figures [--out DIR] (default docs/figures). Exit codes: README.md, "Exit codes" (2 for a bad flag or
// a file that cannot be written).
#include "lane_figures.hpp"

#include "tc/main.hpp"

int main(int argc, char** argv) {
  return tc::figure_tool_main(argc, argv, "05_lane_figures",
                              "Writes the m16n8k16 lane diagrams (A, B, C/D) as SVG from the layout formulas.",
                              mma_lane_figures);
}
