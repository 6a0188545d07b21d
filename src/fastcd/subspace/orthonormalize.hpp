#pragma once
// orthonormalize: M-orthonormal basis of span(B) (simkit.orthonormalize).
#include "fastcd/common/types.hpp"

namespace fastcd {

struct Orthonormalization {
  MatrixXd Q;              ///< n x r' with Q^T M Q = I and span(Q) = span(B restricted to kept)
  MatrixXd R;              ///< r x r upper triangular factor of M^{1/2} B = Qm R (Householder)
  std::vector<Index> kept; ///< columns j of the Householder Q that were kept
};

/// Householder QR of M^{1/2} B = Qm R (LAPACK sign convention, as numpy), keeping column j of
/// Qm iff the row sum sum_k |R(j, k)| > threshold, and returning M^{-1/2} Qm_kept.
/// When nothing is dropped, Q = B R^{-1}: the small triangular R is a change of coordinates
/// from the original basis (use `orthonormalize_factor` to keep a structured B).
///
/// @param B          n x r dense basis.
/// @param M          n x n **diagonal** positive mass (sparse); omitted = identity.
/// @param threshold  row-sum cut-off (simkit default 1e-16).
/// @throws std::invalid_argument if sizes differ, M is not diagonal or has a non-positive
///         diagonal entry.
MatrixXd orthonormalize(const Eigen::Ref<const MatrixXd>& B, double threshold = 1e-16);
MatrixXd orthonormalize(const Eigen::Ref<const MatrixXd>& B, const SparseMatrix& M,
                        double threshold = 1e-16);

/// Same computation, returning Q together with R and the kept columns.
Orthonormalization orthonormalize_factor(const Eigen::Ref<const MatrixXd>& B, const SparseMatrix& M,
                                         double threshold = 1e-16);

/// Diagonal of a sparse matrix that must be diagonal (throws otherwise, naming an
/// off-diagonal entry).
VectorXd diagonal_of(const SparseMatrix& M, const char* what, const char* where);

}  // namespace fastcd
