// LaneMap: which tile element each (lane, register slot) of a warp-wide fragment holds.
//
// (lane 32, slot S) -> (row R, col C). A slot is one element of a lane's fragment: x[slot] for a WMMA fragment, the
// i-th half of a lane's registers for mma.sync. Maps come from two places, and the same class holds both, so that
// a test can compare them: measured by a GPU probe (tc/layouts/probe_encoding.hpp) or computed from the PTX ISA's
// formulas (later chapters). Its queries answer the questions the chapters ask of a layout: is every slot inside the
// tile, how many slots hold each element (WMMA matrix_a/matrix_b fragments may hold an element twice), which lanes.
// Units: rows and columns of the tile; lanes 0..31.
// Errors: out-of-range lane/slot in at() and a bad shape in the constructor throw std::out_of_range /
// std::invalid_argument.
#pragma once

#include "tc/layouts/lane_ids.hpp"  // tc::Coord, tc::kWarpSize

#include <string>
#include <vector>

namespace tc {

class LaneMap {
 public:
  // An empty map of a rows x cols tile in which each of the 32 lanes holds `slots` elements; every slot starts at the
  // invalid coordinate {-1, -1}.
  LaneMap(int rows, int cols, int slots);

  int rows() const { return rows_; }
  int cols() const { return cols_; }
  int slots() const { return slots_; }

  Coord& at(int lane, int slot);
  const Coord& at(int lane, int slot) const;

  // Same tile shape, slot count and coordinate in every (lane, slot).
  bool operator==(const LaneMap& o) const {
    return rows_ == o.rows_ && cols_ == o.cols_ && slots_ == o.slots_ && map_ == o.map_;
  }
  bool operator!=(const LaneMap& o) const { return !(*this == o); }

  bool in_tile(Coord c) const { return c.row >= 0 && c.row < rows_ && c.col >= 0 && c.col < cols_; }
  // True when every slot of every lane names an element inside the tile.
  bool all_slots_in_tile() const;
  // How many (lane, slot) pairs hold element (row, col).
  int copies(int row, int col) const;
  // The fewest and most copies over all elements of the tile: (1, 1) means each element is held exactly once.
  int min_copies() const;
  int max_copies() const;
  // The lanes holding (row, col), in increasing order, with a lane repeated if it holds the element twice.
  std::vector<int> holders(int row, int col) const;
  // The most distinct lanes that hold any one element: 1 means every copy of an element sits in the same lane
  // (a lane holds its data twice), more means copies are spread over lanes.
  int max_holder_lanes() const;

  // One line per lane: "lane  5: x[0]=(1,2) x[1]=(1,3) ...". `slot_name` is the register's name, e.g. "x".
  std::string format_lane_list(const std::string& slot_name = "x") const;
  // The tile as a grid: each cell lists the lane(s) holding that element, "a/b" for two holders.
  std::string format_grid() const;
  // The same grid as a standalone SVG figure: one cell per element, coloured by its first holder's lane (lanes 4
  // apart get distant hues, so the 8 "quads" of 4 lanes stand out), labelled with every holder; `title` above it.
  // With a `slot_name` (e.g. "a"), each cell also names the register element under the lane, as the PTX ISA's
  // fragment figures do: "T5" over "a3" is lane 5's a3. That form needs every element held exactly once
  // (std::invalid_argument otherwise).
  std::string to_svg(const std::string& title, const std::string& slot_name = "") const;

 private:
  int rows_;
  int cols_;
  int slots_;
  std::vector<Coord> map_;  // index lane * slots + slot
};

}  // namespace tc
