#pragma once
// A 64-bit FNV-1a hash of bytes: the keys of the on-disk caches (tet meshes, precomputes).
// Not cryptographic; a cache also checks what it reads back before using it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fastcd/common/types.hpp"

namespace fastcd {

class Hash64 {
 public:
  void add(const void* data, std::size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < bytes; ++i) h_ = (h_ ^ p[i]) * 1099511628211ULL;
  }
  void add(std::string_view s) { add(s.data(), s.size()); }
  /// The shape and then the values of a dense matrix, column by column (bit for bit).
  template <typename Derived>
  void add_matrix(const Eigen::DenseBase<Derived>& m) {
    const Index shape[2] = {m.rows(), m.cols()};
    add(shape, sizeof shape);
    const Eigen::Matrix<typename Derived::Scalar, Eigen::Dynamic, Eigen::Dynamic> c = m;
    add(c.data(), sizeof(typename Derived::Scalar) * static_cast<std::size_t>(c.size()));
  }
  /// The shape and the entries (row, column, value) of a sparse matrix in storage order.
  void add_sparse(const SparseMatrix& m);
  std::uint64_t value() const { return h_; }
  std::string hex() const;  ///< 16 lower-case hex digits

 private:
  std::uint64_t h_ = 14695981039346656037ULL;  // the FNV-1a 64 offset basis
};

}  // namespace fastcd
