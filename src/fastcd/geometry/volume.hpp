#pragma once
// volume: per-simplex measure (simkit.volume).
#include "fastcd/common/types.hpp"

namespace fastcd {

/// Measure of every simplex.
///
/// @param V  #V x d vertex positions (d in {1, 2, 3}).
/// @param F  #F x s simplices: s = 2 edge lengths |x_b - x_a|; s = 3 unsigned triangle areas
///           (2D, or triangles embedded in 3D); s = 4 signed tet volumes
///           det[x1-x0, x2-x0, x3-x0] / 6 (needs d = 3).
/// @return   #F vector.
/// @throws std::invalid_argument for another s, a tet in 2D, or out-of-range indices.
VectorXd volume(const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& F);

}  // namespace fastcd
