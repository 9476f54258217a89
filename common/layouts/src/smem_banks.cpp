#include "tc/layouts/smem_banks.hpp"

#include <cstdio>
#include <string>

namespace tc {

std::string bank_svg(const std::string& title, const AccessCost& cost) {
  // Layout in SVG user units (pixels): a 26 x 20 cell per (lane, bank) holds a two-digit lane number in a 10 px font;
  // 60 px on the left hold "lane NN", each panel has 40 px above its grid for its caption and the bank numbers.
  constexpr int kCellW = 26, kCellH = 20, kLeft = 60, kTitleY = 22, kPanelGap = 46, kTop = 40;
  int height = kTop;
  for (const PhaseCost& p : cost.phases) height += kPanelGap + int(p.accesses.size()) * kCellH;
  const int width = kLeft + kSmemBanks * kCellW + 10;
  std::string out;
  char buf[640];
  std::snprintf(buf, sizeof buf,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                "font-family=\"monospace\" font-size=\"10\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
                "<text x=\"10\" y=\"%d\" font-size=\"14\">%s: %d wavefronts, %d conflicts</text>\n",
                width, height, width, height, kTitleY, title.c_str(), cost.wavefronts, cost.conflicts);
  out += buf;
  int y = kTop;
  for (std::size_t q = 0; q < cost.phases.size(); ++q) {
    const PhaseCost& p = cost.phases[q];
    std::snprintf(buf, sizeof buf,
                  "<text x=\"10\" y=\"%d\" font-size=\"12\">phase %zu: %d "
                  "wavefront%s (%d extra)</text>\n",
                  y + 16, q, p.wavefronts, p.wavefronts == 1 ? "" : "s",
                  p.conflicts());
    out += buf;
    y += kPanelGap;
    for (int b = 0; b < kSmemBanks; ++b) {
      // A bank asked for more than one distinct word serializes: its column number turns red with the word count.
      const bool hot = p.words_per_bank[b] > 1;
      std::snprintf(buf, sizeof buf, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"%s\">%d%s</text>\n",
                    kLeft + b * kCellW + kCellW / 2, y - 6, hot ? "#c00" : "#000", b,
                    hot ? ("x" + std::to_string(p.words_per_bank[b])).c_str() : "");
      out += buf;
    }
    for (std::size_t r = 0; r < p.accesses.size(); ++r) {
      const SmemAccess& a = p.accesses[r];
      std::snprintf(buf, sizeof buf, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">lane %d</text>\n", kLeft - 6,
                    y + int(r) * kCellH + 14, a.lane);
      out += buf;
      for (int b = 0; b < kSmemBanks; ++b) {
        bool touched = false;
        for (std::int64_t w = a.address / kBankBytes; w * kBankBytes < a.address + a.bytes; ++w)
          touched |= smem_bank(w * kBankBytes) == b;
        // Hue by lane within the phase (8 lanes: 45 degrees apart) so each lane's run of banks reads as one block.
        const int hue = (a.lane % 8) * 45;
        std::snprintf(buf, sizeof buf,
                      "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"%s\"/>",
                      kLeft + b * kCellW, y + int(r) * kCellH, kCellW, kCellH,
                      touched ? ("hsl(" + std::to_string(hue) + ",70%,78%)").c_str() : "white",
                      p.words_per_bank[b] > 1 ? "#c00" : "#999");
        out += buf;
        if (touched) {
          std::snprintf(buf, sizeof buf, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d</text>",
                        kLeft + b * kCellW + kCellW / 2, y + int(r) * kCellH + 14, a.lane);
          out += buf;
        }
        out += '\n';
      }
    }
    y += int(p.accesses.size()) * kCellH;
  }
  out += "</svg>\n";
  return out;
}

}  // namespace tc
