#pragma once
// skinning_eigenmodes: smallest generalized eigenmodes of the Dirichlet energy, optionally
// fixed on vertices and/or constrained by A W = 0, lifted to an LBS subspace.
#include <optional>

#include "fastcd/common/types.hpp"

namespace fastcd {

struct SkinningEigenmodes {
  MatrixXd W;      ///< #V x k modes, W^T M W = I, ascending eigenvalue, sign fixed so that the
                   ///< largest-magnitude entry of each mode is positive
  VectorXd E;      ///< k eigenvalues, ascending
  SparseMatrix B;  ///< lbs_jacobian(X, W): #V*dim x k*dim*(dim+1) (sparse, see lbs_jacobian)
};

/// The k smallest eigenpairs of L w = E M w with L = dirichlet_laplacian(X, T, mu) and
/// M = massmatrix(X, T) (scalar, lumped), subject to w = 0 on `bI` and `Aeq w = 0`
/// (simkit.skinning_eigenmodes; unlike simkit, bI and Aeq may be combined).
///
/// Method: Spectra's symmetric generalized shift-invert Lanczos with the constraint built into
/// the operator, x -> P K^{-1} x with K = L - sigma M (sigma slightly negative, so K is SPD),
/// P v = v - Z (Aeq Z)^{-1} Aeq v, Z = K^{-1} Aeq^T, K factorised once by a sparse Cholesky.
/// Tiny problems (fewer than ~2k + 20 free vertices) use a dense null-space solve instead.
///
/// @param X    #V x dim rest positions, T #T x (dim+1) simplices.
/// @param k    number of modes, 1 <= k <= #free vertices - rank(Aeq).
/// @param mu   stiffness scale (> 0).
/// @param bI   vertices where every mode is 0.
/// @param Aeq  r x #V weight-space constraint (e.g. lbs_weight_space_constraint); its rows need
///             not be independent (the rank is detected).
/// @throws std::invalid_argument for bad shapes/indices or k out of range;
///         std::runtime_error when the eigen-solve does not converge.
SkinningEigenmodes skinning_eigenmodes(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T, int k,
                                       double mu = 1.0, const std::optional<VectorXi>& bI = std::nullopt,
                                       const std::optional<MatrixXd>& Aeq = std::nullopt);

}  // namespace fastcd
