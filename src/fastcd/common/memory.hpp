#pragma once
// Bytes held by Eigen objects, for the memory_bytes() reports of the solvers.
#include <cstddef>

#include "fastcd/common/types.hpp"

namespace fastcd {

/// Physical memory the system reports as available now (MemAvailable; 0 when unknown).
std::size_t available_memory_bytes();

}  // namespace fastcd

namespace fastcd::detail {

template <class Scalar, int R, int C, int O, int MR, int MC>
std::size_t bytes_of(const Eigen::Matrix<Scalar, R, C, O, MR, MC>& A) {
  return sizeof(Scalar) * static_cast<std::size_t>(A.size());
}

inline std::size_t bytes_of(const SparseMatrix& A) {
  return (sizeof(double) + sizeof(SparseMatrix::StorageIndex)) * static_cast<std::size_t>(A.nonZeros()) +
         sizeof(SparseMatrix::StorageIndex) * static_cast<std::size_t>(A.outerSize() + 1);
}

}  // namespace fastcd::detail
