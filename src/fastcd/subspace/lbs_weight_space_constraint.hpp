#pragma once
// lbs_weight_space_constraint: a linear constraint on displacements, as a constraint on
// per-vertex skinning weights.
#include "fastcd/common/types.hpp"

namespace fastcd {

/// For a constraint C u = 0 on stacked displacements u (#V*dim), returns A (r x #V) such that
/// every LBS displacement u_v = sum_b W(v, b) A_b [V_v; 1] satisfies C u = 0 for all affine A_b
/// exactly when A W = 0.
///
/// The full weight-space operator has c*dim*(dim+1) rows (for i < dim: for j < dim the block
/// C P_i diag(V_j), then C P_i); its numerical rank r is found by a thin SVD of its
/// mass-weighted transpose M^{1/2} A^T (M = massmatrix(V, T)), keeping singular values above
/// `rtol` times the largest. The result is an orthonormal basis of the row space (A A^T = I),
/// not simkit's "first r rows" (which can be rows of size 1e-17 that enforce nothing).
///
/// @param V     #V x dim vertices, T #T x (dim+1) simplices.
/// @param C     c x (#V*dim) constraint (e.g. J^T M D), dense or sparse.
/// @param rtol  relative singular-value cut-off.
/// @return      r x #V with orthonormal rows; r = 0 when C is zero.
/// @throws std::invalid_argument on size mismatch or non-finite C; MemoryLimitError (before
///         allocating) when the dense operator and its basis would not fit in memory.
MatrixXd lbs_weight_space_constraint(const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& T,
                                     const SparseMatrix& C, double rtol = 1e-10);
MatrixXd lbs_weight_space_constraint(const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& T,
                                     const Eigen::Ref<const MatrixXd>& C, double rtol = 1e-10);

/// Orthonormal basis (as rows) of the row space of A measured in the inner product of the
/// diagonal weights m (rank from the singular values of diag(m)^{1/2} A^T above rtol * max).
/// Shared by the weight-space constraint and the full-order constraint reduction.
/// @throws MemoryLimitError (before allocating) when its work would not fit in memory.
MatrixXd row_space_basis(const Eigen::Ref<const MatrixXd>& A, const Eigen::Ref<const VectorXd>& m, double rtol);

/// Bytes row_space_basis holds at its peak for `rows` distinct rows of `cols` entries: the
/// weighted copy, its QR, the singular vectors, the basis and its QR (cols x rows each), R and its
/// SVD (rows x rows). For estimates before the work.
double row_space_bytes(double rows, double cols);

}  // namespace fastcd
