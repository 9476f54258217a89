// 06_figures: writes chapter 06's figures (figures.hpp) as SVG files, the ones committed in docs/figures/. Host only:
// it runs on any machine. Usage: 06_figures [--out DIR] (default docs/figures).
// Exit codes: README.md, "Exit codes" (2 for a bad flag or a file that cannot be written).
#include "figures.hpp"

#include "tc/cli.hpp"
#include "tc/main.hpp"

#include <cstdio>

int main(int argc, char** argv) {
  return tc::run_main([&] {
    tc::Cli cli("06_figures", "Writes chapter 06's ldmatrix, bank, swizzle and pipeline figures as SVG.");
    cli.add_string("out", "docs/figures", "folder to write the 06_*.svg files into");
    if (!cli.parse(argc, argv)) return tc::kExitOk;
    for (const Figure& f : chapter_figures()) {
      const std::string path = cli.get_string("out") + "/" + f.file;
      tc::write_text_file(path, f.svg);
      std::printf("wrote %s\n", path.c_str());
    }
    return tc::kExitOk;
  });
}
