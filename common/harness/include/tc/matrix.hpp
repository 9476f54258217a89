// HostMatrix<T, Layout>: a rows x cols matrix in host memory with an explicit layout tag and leading dimension.
//
// Storage is one std::vector<T> of Layout::storage_size(rows, cols, ld) elements; padding between columns (ColMajor)
// or rows (RowMajor) is part of it, so data() can be uploaded as is and handed to a kernel with the same ld.
// Units: elements. Preconditions: rows, cols >= 0 and ld >= Layout::min_ld(rows, cols); otherwise the constructor
// throws std::invalid_argument with a one-line message. operator() does not bounds-check (use at()).
#pragma once

#include "tc/layouts/tags.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace tc {

template <typename T, typename Layout>
class HostMatrix {
 public:
  using value_type = T;
  using layout = Layout;

  HostMatrix(int rows, int cols) : HostMatrix(rows, cols, Layout::min_ld(rows, cols)) {}
  HostMatrix(int rows, int cols, int ld) : rows_(rows), cols_(cols), ld_(ld) {
    if (rows < 0 || cols < 0) {
      throw std::invalid_argument("HostMatrix: negative size " + std::to_string(rows) + " x " + std::to_string(cols));
    }
    if (ld < Layout::min_ld(rows, cols)) {
      throw std::invalid_argument(std::string("HostMatrix: ld ") + std::to_string(ld) + " is below the minimum " +
                                  std::to_string(Layout::min_ld(rows, cols)) + " for a " + std::to_string(rows) +
                                  " x " + std::to_string(cols) + " " + Layout::name + " matrix");
    }
    storage_.resize(Layout::storage_size(rows, cols, ld));
  }

  int rows() const { return rows_; }
  int cols() const { return cols_; }
  int ld() const { return ld_; }

  T& operator()(int row, int col) { return storage_[Layout::offset(row, col, ld_)]; }
  const T& operator()(int row, int col) const { return storage_[Layout::offset(row, col, ld_)]; }
  T& at(int row, int col) {
    check(row, col);
    return (*this)(row, col);
  }
  const T& at(int row, int col) const {
    check(row, col);
    return (*this)(row, col);
  }

  T* data() { return storage_.data(); }
  const T* data() const { return storage_.data(); }
  std::vector<T>& storage() { return storage_; }
  const std::vector<T>& storage() const { return storage_; }

 private:
  void check(int row, int col) const {
    if (row < 0 || row >= rows_ || col < 0 || col >= cols_) {
      throw std::out_of_range("HostMatrix: (" + std::to_string(row) + ", " + std::to_string(col) +
                              ") is outside " + std::to_string(rows_) + " x " + std::to_string(cols_));
    }
  }

  int rows_;
  int cols_;
  int ld_;
  std::vector<T> storage_;
};

}  // namespace tc
