#pragma once
// Regular refinement of a simplicial mesh: every edge split at its midpoint, each triangle into
// 4 and each tetrahedron into 8 (Bey 1995: four corner tets and the inner octahedron cut along
// its shortest diagonal), each child oriented as its parent. A finer copy of a shipped mesh for
// scale tests (fastcd bench --aquarium).
#include "fastcd/common/types.hpp"

namespace fastcd {

/// @param X  #V x dim rest positions (dim 2 or 3).
/// @param T  #T x (dim+1) simplices.
/// @return the refined mesh: X's vertices first (same indices), then one vertex per edge;
///         4 (2D) or 8 (3D) children per simplex, those of simplex e at rows 4e.. or 8e...
/// @throws std::invalid_argument for a malformed mesh (check_mesh).
Mesh subdivide_simplices(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T);

}  // namespace fastcd
