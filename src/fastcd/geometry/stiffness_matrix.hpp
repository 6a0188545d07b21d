#pragma once
// stiffness_matrix: the constant system matrix of the local/global solvers, from per-element weights.
#include "fastcd/common/types.hpp"

namespace fastcd {

/// L = G^T kron(diag(w), I_{dim^2}) G: the stiffness both solvers factor (FullCD its scalar
/// block, L = kron(L_s, I_dim), plus Ms / h^2; FastCD projected into its subspace, B^T L B plus
/// B^T Mv B / h^2). For ARAP the weights are w_e = mu_e |vol_e|, and L is the Hessian of the
/// energy sum_e w_e / 2 ||F_e - R_e||^2 with the rotations R_e held fixed. The weights are per
/// element, so painted stiffness is data, not another code path. Both solvers reach L through
/// `elastic_operators` (its `L`), which calls this function: one construction, so a change of
/// weights reaches both.
///
/// The sparse product is evaluated in a fixed order (Eigen's conservative sparse product: every
/// entry sums its elements' terms (w_e G(r, v)) G(r, w) in ascending row r of G), so the same
/// inputs give the same matrix bit for bit. Every (i, i) block of L is the same scalar matrix
/// L_s, entry for entry (G repeats its values across the dim components); the entries of the
/// element-adjacency pattern that vanish are stored as explicit zeros.
///
/// @param G  deformation_jacobian(X, T): #T*dim^2 x #V*dim.
/// @param w  #T per-element weights, finite (not necessarily positive: L is then indefinite).
/// @param dim  2 or 3.
/// @return #V*dim x #V*dim symmetric sparse matrix; positive semi-definite when w >= 0.
/// @throws std::invalid_argument if dim is not 2/3, G's shape does not fit dim, w has the wrong
///         size or a non-finite entry.
SparseMatrix stiffness_matrix(const SparseMatrix& G, const Eigen::Ref<const VectorXd>& w, Index dim);

/// The scalar block A_s of A = kron(A_s, I_k): A_s(r, c) = A(r*k, c*k) for every stored entry of
/// A's first component (explicit zeros kept, so A_s has A's pattern). Unlike kron_identity_factor
/// it does not check the other blocks: use it on matrices that have that form by construction,
/// such as stiffness_matrix.
/// @throws std::invalid_argument if k < 1 or A's size is not a multiple of k.
SparseMatrix kron_identity_block(const SparseMatrix& A, Index k);

}  // namespace fastcd
