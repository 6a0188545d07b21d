#pragma once
// Restricting operators to a subset of vertices (the free ones, the interior ones).
#include <vector>

#include "fastcd/common/types.hpp"

namespace fastcd {

/// Kept-index map of the vertices not in `excluded`: slot[v] = position among the kept
/// vertices, or -1. Returns the number kept.
inline Index keep_slots(Index n, const Eigen::Ref<const VectorXi>& excluded, std::vector<Index>& slot) {
  slot.assign(static_cast<std::size_t>(n), 0);
  for (Index i = 0; i < excluded.size(); ++i) slot[static_cast<std::size_t>(excluded(i))] = -1;
  Index kept = 0;
  for (auto& s : slot) s = (s == 0) ? kept++ : -1;
  return kept;
}

/// A(kept, kept) for a square A, with `slot` from keep_slots.
inline SparseMatrix principal_submatrix(const SparseMatrix& A, const std::vector<Index>& slot, Index kept) {
  std::vector<Triplet> trip;
  for (Index c = 0; c < A.outerSize(); ++c)
    for (SparseMatrix::InnerIterator it(A, c); it; ++it)
      if (slot[static_cast<std::size_t>(it.row())] >= 0 && slot[static_cast<std::size_t>(c)] >= 0)
        trip.emplace_back(slot[static_cast<std::size_t>(it.row())], slot[static_cast<std::size_t>(c)], it.value());
  SparseMatrix S(kept, kept);
  S.setFromTriplets(trip.begin(), trip.end());
  return S;
}

}  // namespace fastcd
