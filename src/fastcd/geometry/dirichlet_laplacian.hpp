#pragma once
// dirichlet_laplacian: P1 stiffness of the Dirichlet energy (minus the cotangent matrix).
#include "fastcd/common/types.hpp"

namespace fastcd {

/// K(v, w) = sum_e mu_e |vol_e| grad(phi_v) . grad(phi_w): symmetric positive semi-definite,
/// K * 1 = 0. With `vector`, returns kron(K, I_dim) on interleaved DOFs, which equals the ARAP
/// stiffness G^T (mu vol (x) I_{dim^2}) G.
///
/// @param X       #V x dim rest positions, dim in {2, 3}.
/// @param T       #T x (dim+1) simplices.
/// @param mu      stiffness, scalar or per element (#T).
/// @param vector  lift to #V*dim DOFs.
/// @throws std::invalid_argument for bad shapes, a degenerate element or non-finite mu.
SparseMatrix dirichlet_laplacian(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                                 double mu = 1.0, bool vector = false);
SparseMatrix dirichlet_laplacian(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                                 const Eigen::Ref<const VectorXd>& mu, bool vector = false);

}  // namespace fastcd
