#pragma once
// deformation_jacobian: the linear map from positions to per-element deformation gradients.
#include "fastcd/common/types.hpp"

namespace fastcd {

/// G with (G x) = stacked deformation gradients F_e = dx/dX of the piecewise-linear map,
/// element-major, each F flattened row-major: row e*dim^2 + i*dim + j holds F_e(i, j), and
/// G(e*dim^2 + i*dim + j, v*dim + i) = d(phi_v)/dX_j on element e (simkit convention).
///
/// @param X  #V x dim rest positions, dim in {2, 3}.
/// @param T  #T x (dim+1) simplices (either orientation).
/// @return   (dim^2 * #T) x (dim * #V) sparse matrix, (dim+1)*dim^2 non-zeros per element.
/// @throws std::invalid_argument for bad shapes/indices or a degenerate element (named).
SparseMatrix deformation_jacobian(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T);

}  // namespace fastcd
