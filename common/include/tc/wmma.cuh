// Layout tags (tc::RowMajor, tc::ColMajor) as WMMA sees them. Device code; include from .cu files only.
//
// WmmaLayout<Tag>::type is the fragment layout type for matrix_a/matrix_b fragments (nvcuda::wmma::row_major or
// col_major) and WmmaLayout<Tag>::mem the layout_t that accumulator loads and stores take at run time.
// Source: CUDA C++ Programming Guide, "Warp Matrix Functions" (fragment, load_matrix_sync, store_matrix_sync).
#pragma once

#include "tc/layouts/tags.hpp"

#include <mma.h>

namespace tc {

template <typename Layout>
struct WmmaLayout;

template <>
struct WmmaLayout<RowMajor> {
  using type = nvcuda::wmma::row_major;
  static constexpr nvcuda::wmma::layout_t mem = nvcuda::wmma::mem_row_major;
};

template <>
struct WmmaLayout<ColMajor> {
  using type = nvcuda::wmma::col_major;
  static constexpr nvcuda::wmma::layout_t mem = nvcuda::wmma::mem_col_major;
};

template <typename Layout>
using wmma_layout_t = typename WmmaLayout<Layout>::type;

}  // namespace tc
