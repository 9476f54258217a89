// 05_lane_figures: writes chapter 05's lane diagrams (lane_figures.hpp) as SVG files, the ones committed in
// docs/figures/. Host only: it runs on any machine. Usage: 05_lane_figures [--out DIR] (default docs/figures).
// Exit codes: README.md, "Exit codes" (2 for a bad flag or a file that cannot be written).
#include "lane_figures.hpp"

#include "tc/cli.hpp"
#include "tc/main.hpp"

#include <cstdio>

int main(int argc, char** argv) {
  return tc::run_main([&] {
    tc::Cli cli("05_lane_figures", "Writes the m16n8k16 lane diagrams (A, B, C/D) as SVG from the layout formulas.");
    cli.add_string("out", "docs/figures", "folder to write 05_mma_m16n8k16_{a,b,c}.svg into");
    if (!cli.parse(argc, argv)) return tc::kExitOk;
    for (const LaneFigure& f : mma_lane_figures()) {
      const std::string path = cli.get_string("out") + "/" + f.file;
      tc::write_text_file(path, f.svg);
      std::printf("wrote %s\n", path.c_str());
    }
    return tc::kExitOk;
  });
}
