// Storage-layout tags: where element (row, col) of a matrix lives in memory.
//
// (row, col, ld) -> element offset. Units: elements, not bytes. ld is the leading dimension: the distance in elements
// between consecutive columns (ColMajor, cuBLAS's and Fortran's convention) or consecutive rows (RowMajor, C's).
// Chapters choose a layout by naming a tag type, so switching a layout changes a template argument, never index math.
// Preconditions: 0 <= row < rows, 0 <= col < cols, ld >= min_ld(rows, cols).
// Source: cuBLAS documentation, "Data Layout"; CUDA C++ Programming Guide, "Warp Matrix Functions" (mem_row_major,
// mem_col_major).
#pragma once

#include <cuda_runtime_api.h>  // __host__ __device__ for host-only compilers too

#include <cstddef>

namespace tc {

// [doc:tags]
struct RowMajor {
  static constexpr const char* name = "row-major";
  __host__ __device__ static constexpr std::size_t offset(int row, int col, int ld) {
    return static_cast<std::size_t>(row) * ld + col;
  }
  // Smallest valid ld; at least 1, as cuBLAS requires, so that empty matrices still have a legal ld.
  __host__ __device__ static constexpr int min_ld(int /*rows*/, int cols) { return cols > 1 ? cols : 1; }
  // Elements the storage spans, padding included.
  __host__ __device__ static constexpr std::size_t storage_size(int rows, int /*cols*/, int ld) {
    return static_cast<std::size_t>(rows) * ld;
  }
  // The storage as contiguous lines: a line is a row of `cols` elements, and there are `rows` of them, ld apart.
  // cudaMemcpy2D's width and height in elements, and what a padded copy rounds up.
  __host__ __device__ static constexpr int line_length(int /*rows*/, int cols) { return cols; }
  __host__ __device__ static constexpr int line_count(int rows, int /*cols*/) { return rows; }
};

struct ColMajor {
  static constexpr const char* name = "column-major";
  __host__ __device__ static constexpr std::size_t offset(int row, int col, int ld) {
    return static_cast<std::size_t>(col) * ld + row;
  }
  __host__ __device__ static constexpr int min_ld(int rows, int /*cols*/) { return rows > 1 ? rows : 1; }
  __host__ __device__ static constexpr std::size_t storage_size(int /*rows*/, int cols, int ld) {
    return static_cast<std::size_t>(cols) * ld;
  }
  // A line is a column of `rows` elements; there are `cols` of them, ld apart.
  __host__ __device__ static constexpr int line_length(int rows, int /*cols*/) { return rows; }
  __host__ __device__ static constexpr int line_count(int /*rows*/, int cols) { return cols; }
};
// [/doc:tags]

// The layout in which the same bytes read as the transposed matrix: a row-major M x N array is a column-major
// N x M array with the same ld. Chapter 03 is built on this identity.
template <typename Layout>
struct Transposed;
template <>
struct Transposed<RowMajor> {
  using type = ColMajor;
};
template <>
struct Transposed<ColMajor> {
  using type = RowMajor;
};
template <typename Layout>
using transposed_t = typename Transposed<Layout>::type;

}  // namespace tc
