#pragma once
// diffuse_field: one implicit heat step from Dirichlet seeds (simkit.diffuse_field).
#include <optional>

#include "fastcd/common/types.hpp"

namespace fastcd {

/// Solves (dt K + M)_ii W_ii = -(dt K + M)_ib phi on the non-seed vertices i, sets W_b = phi,
/// then (if `normalize`) rescales each column to [0, 1] by (W - min) / (max - min).
/// K = dirichlet_laplacian(V, T), M = massmatrix(V, T) (rho = 1).
///
/// Differences from simkit, on purpose: the default dt is the squared mean length of *all*
/// element edges (simkit averages only each simplex's first edge), and a constant column is
/// left unnormalised instead of becoming NaN.
///
/// Simkit tutorial 23's momentum-leak field is D = 1 - diffuse_field(X, T, boundary, 1, 1).
///
/// @param V    #V x dim vertices (dim 2 or 3).
/// @param T    #T x (dim+1) simplices.
/// @param bI   #b seed vertex indices (distinct).
/// @param phi  #b x k seed values.
/// @param dt   diffusion time (> 0); default as above.
/// @return     #V x k field.
/// @throws std::invalid_argument for bad shapes, out-of-range or repeated seeds, dt <= 0.
MatrixXd diffuse_field(const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& T,
                       const Eigen::Ref<const VectorXi>& bI, const Eigen::Ref<const MatrixXd>& phi,
                       std::optional<double> dt = std::nullopt, bool normalize = true);

}  // namespace fastcd
