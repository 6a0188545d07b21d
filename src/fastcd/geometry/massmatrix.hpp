#pragma once

#include <optional>
// massmatrix: lumped (diagonal) mass matrix (simkit.massmatrix).
#include "fastcd/common/types.hpp"

namespace fastcd {

/// Lumped mass: m_v = sum over elements e containing v of rho_e * |vol_e| / s, with s the
/// number of corners (3 triangles, 4 tets). A vertex in no element gets mass 0.
///
/// Unlike simkit, tet volumes enter with their absolute value, so an inverted rest tet does
/// not produce negative mass.
///
/// @param X    #V x dim rest positions, dim in {2, 3}.
/// @param T    #T x (dim+1) simplices.
/// @param rho  density, a scalar or one value per element (#T).
/// @return     #V x #V diagonal sparse matrix. Lift to DOFs with kron(M, I_dim) (see
///             `kron_identity`).
/// @throws std::invalid_argument on bad shapes/indices, non-finite or negative density.
SparseMatrix massmatrix(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T, double rho = 1.0);
SparseMatrix massmatrix(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                        const Eigen::Ref<const VectorXd>& rho);

/// kron(A, I_k): lifts a per-vertex operator to interleaved DOFs.
SparseMatrix kron_identity(const SparseMatrix& A, Index k);

/// The inverse of kron_identity: A_s with A = kron(A_s, I_k) exactly (A(r*k + i, c*k + j) =
/// A_s(r, c) when i = j, 0 otherwise), or nothing when A is not of that form. LBS and cage
/// rig Jacobians are (J = J_s (x) I_dim), and solvers then work on the dim^2 times smaller A_s.
std::optional<SparseMatrix> kron_identity_factor(const SparseMatrix& A, Index k);

/// Diagonal sparse matrix from a vector.
SparseMatrix sparse_diagonal(const Eigen::Ref<const VectorXd>& d);

}  // namespace fastcd
