#include "tc/lane_map.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace tc {

LaneMap::LaneMap(int rows, int cols, int slots) : rows_(rows), cols_(cols), slots_(slots) {
  if (rows < 1 || cols < 1 || slots < 1) {
    throw std::invalid_argument("LaneMap: rows, cols and slots must be >= 1");
  }
  map_.assign(static_cast<std::size_t>(kWarpSize) * slots, Coord{});
}

Coord& LaneMap::at(int lane, int slot) {
  return const_cast<Coord&>(static_cast<const LaneMap&>(*this).at(lane, slot));
}

const Coord& LaneMap::at(int lane, int slot) const {
  if (lane < 0 || lane >= kWarpSize || slot < 0 || slot >= slots_) {
    throw std::out_of_range("LaneMap::at: lane " + std::to_string(lane) + ", slot " + std::to_string(slot) +
                            " is outside 32 lanes x " + std::to_string(slots_) + " slots");
  }
  return map_[static_cast<std::size_t>(lane) * slots_ + slot];
}

bool LaneMap::all_slots_in_tile() const {
  return std::all_of(map_.begin(), map_.end(), [this](Coord c) { return in_tile(c); });
}

int LaneMap::copies(int row, int col) const {
  return static_cast<int>(std::count(map_.begin(), map_.end(), Coord{row, col}));
}

int LaneMap::min_copies() const {
  int lo = static_cast<int>(map_.size());
  for (int r = 0; r < rows_; ++r)
    for (int c = 0; c < cols_; ++c) lo = std::min(lo, copies(r, c));
  return lo;
}

int LaneMap::max_copies() const {
  int hi = 0;
  for (int r = 0; r < rows_; ++r)
    for (int c = 0; c < cols_; ++c) hi = std::max(hi, copies(r, c));
  return hi;
}

std::vector<int> LaneMap::holders(int row, int col) const {
  std::vector<int> lanes;
  for (int lane = 0; lane < kWarpSize; ++lane)
    for (int slot = 0; slot < slots_; ++slot)
      if (at(lane, slot) == Coord{row, col}) lanes.push_back(lane);
  return lanes;
}

int LaneMap::max_holder_lanes() const {
  int most = 0;
  for (int r = 0; r < rows_; ++r) {
    for (int c = 0; c < cols_; ++c) {
      std::vector<int> lanes = holders(r, c);  // sorted, so distinct lanes are runs
      most = std::max(most, static_cast<int>(std::unique(lanes.begin(), lanes.end()) - lanes.begin()));
    }
  }
  return most;
}

std::string LaneMap::format_lane_list(const std::string& slot_name) const {
  std::string out;
  char cell[48];
  for (int lane = 0; lane < kWarpSize; ++lane) {
    std::snprintf(cell, sizeof cell, "lane %2d:", lane);
    out += cell;
    for (int slot = 0; slot < slots_; ++slot) {
      const Coord c = at(lane, slot);
      if (in_tile(c)) {
        std::snprintf(cell, sizeof cell, " %s[%d]=(%d,%d)", slot_name.c_str(), slot, c.row, c.col);
      } else {
        std::snprintf(cell, sizeof cell, " %s[%d]=(?)", slot_name.c_str(), slot);
      }
      out += cell;
    }
    out += '\n';
  }
  return out;
}

std::string LaneMap::format_grid() const {
  // Cells are as wide as the widest holder list, so columns line up whatever the copy count.
  std::vector<std::string> cells;
  std::size_t width = 1;
  for (int r = 0; r < rows_; ++r) {
    for (int c = 0; c < cols_; ++c) {
      std::string cell;
      for (int lane : holders(r, c)) cell += (cell.empty() ? "" : "/") + std::to_string(lane);
      if (cell.empty()) cell = "-";
      width = std::max(width, cell.size());
      cells.push_back(cell);
    }
  }
  std::string out = "row\\col";
  for (int c = 0; c < cols_; ++c) {
    std::string head = std::to_string(c);
    out += ' ' + std::string(width - std::min(width, head.size()), ' ') + head;
  }
  out += '\n';
  for (int r = 0; r < rows_; ++r) {
    std::string head = std::to_string(r);
    out += std::string(7 - std::min<std::size_t>(7, head.size()), ' ') + head;
    for (int c = 0; c < cols_; ++c) {
      const std::string& cell = cells[static_cast<std::size_t>(r) * cols_ + c];
      out += ' ' + std::string(width - cell.size(), ' ') + cell;
    }
    out += '\n';
  }
  return out;
}

std::string LaneMap::to_svg(const std::string& title, const std::string& slot_name) const {
  // Layout in SVG user units (pixels): a cell of 46 x 24 fits "31/31" in an 11 px font (46 x 34 when a second line
  // names the register element); a 40 px margin on the left and top holds the row and column indices, 30 px above
  // that the title. The title is monospace at 14 px, about 8.4 px per character: 9 keeps a long title inside a
  // narrow grid's figure.
  const bool with_slots = !slot_name.empty();
  if (with_slots && (min_copies() != 1 || max_copies() != 1)) {
    throw std::invalid_argument("LaneMap::to_svg: register labels need every element held exactly once");
  }
  constexpr int kCellW = 46, kLeft = 40, kTop = 70, kTitleY = 24, kTitleCharW = 9;
  const int kCellH = with_slots ? 34 : 24;
  const int width = std::max(kLeft + cols_ * kCellW, kLeft + static_cast<int>(title.size()) * kTitleCharW) + 10;
  const int height = kTop + rows_ * kCellH + 10;
  std::string out;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                "font-family=\"monospace\" font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
                "<text x=\"%d\" y=\"%d\" font-size=\"14\">",
                width, height, width, height, kLeft, kTitleY);
  out += buf;
  for (char ch : title) {  // escape the three characters XML text cannot hold as they are
    if (ch == '<') out += "&lt;";
    else if (ch == '>') out += "&gt;";
    else if (ch == '&') out += "&amp;";
    else out += ch;
  }
  out += "</text>\n";
  for (int c = 0; c < cols_; ++c) {
    std::snprintf(buf, sizeof buf, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d</text>\n",
                  kLeft + c * kCellW + kCellW / 2, kTop - 8, c);
    out += buf;
  }
  // The (lane, slot) holding each element, for the register labels.
  std::vector<int> slot_of(static_cast<std::size_t>(rows_) * cols_, -1);
  for (int lane = 0; lane < kWarpSize && with_slots; ++lane)
    for (int slot = 0; slot < slots_; ++slot) slot_of[at(lane, slot).row * cols_ + at(lane, slot).col] = slot;
  for (int r = 0; r < rows_; ++r) {
    std::snprintf(buf, sizeof buf, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%d</text>\n", kLeft - 6,
                  kTop + r * kCellH + 16, r);
    out += buf;
    for (int c = 0; c < cols_; ++c) {
      const std::vector<int> lanes = holders(r, c);
      std::string label;
      for (int lane : lanes) label += (label.empty() ? "" : "/") + std::to_string(lane);
      if (with_slots) label = "T" + label;
      // Hue: lane % 4 picks one of four widely spaced base hues and lane / 4 shifts within it, so neighbouring
      // lanes of one quad differ strongly and the same position in different quads differs slightly.
      const int hue = lanes.empty() ? 0 : (lanes.front() % 4) * 90 + (lanes.front() / 4) * 10;
      const char* fill_light = lanes.empty() ? "100%" : "82%";
      std::snprintf(buf, sizeof buf,
                    "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"hsl(%d,70%%,%s)\" stroke=\"#555\"/>"
                    "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                    kLeft + c * kCellW, kTop + r * kCellH, kCellW, kCellH, hue, fill_light,
                    kLeft + c * kCellW + kCellW / 2, kTop + r * kCellH + 16, label.empty() ? "-" : label.c_str());
      out += buf;
      if (with_slots) {
        std::snprintf(buf, sizeof buf, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s%d</text>\n",
                      kLeft + c * kCellW + kCellW / 2, kTop + r * kCellH + 29, slot_name.c_str(),
                      slot_of[r * cols_ + c]);
        out += buf;
      }
    }
  }
  out += "</svg>\n";
  return out;
}

}  // namespace tc
