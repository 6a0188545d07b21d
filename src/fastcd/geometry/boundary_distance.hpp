#pragma once
// distance_to_boundary: Euclidean distance from points to the boundary of a simplicial mesh.
#include "fastcd/common/types.hpp"

namespace fastcd {

/// For every point of P (#P x dim), the distance to the mesh's boundary (the boundary_facets
/// of T: segments in 2D, triangles in 3D), whether the point is inside the mesh or not.
/// Nearest facets are found through a grid over the facets' boxes, searched in rings.
/// @param X  #V x dim vertices, T #T x (dim+1) simplices, P #P x dim points.
/// @throws std::invalid_argument on bad shapes or non-finite points.
VectorXd distance_to_boundary(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                              const Eigen::Ref<const MatrixXd>& P);

}  // namespace fastcd
