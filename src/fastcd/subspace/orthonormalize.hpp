#pragma once
// orthonormalize: M-orthonormal basis of span(B) (simkit.orthonormalize).
#include "fastcd/common/types.hpp"

namespace fastcd {

struct Orthonormalization {
  MatrixXd Q;               ///< n x r' with Q^T M Q = I and span(Q) = span(B)
  MatrixXd R;               ///< upper triangular with Q = B[:, kept] R^{-1} (full rank: the r x r
                            ///< Householder factor of M^{1/2} B, kept = 0..r-1)
  std::vector<Index> kept;  ///< columns of B that Q is built from
};

/// Householder QR of M^{1/2} B = Qm R (LAPACK sign convention, as numpy), keeping column j of
/// Qm iff the row sum sum_k |R(j, k)| > threshold (simkit's test) **and** |R(j, j)| >
/// rank_rtol * max_i |R(i, i)|, and returning M^{-1/2} Qm_kept. The second test is not in
/// simkit: without it a numerically dependent column of B (tiny R(j, j), ordinary
/// off-diagonals) contributes a rounding-noise direction outside span(B) — which, for a
/// rig-orthogonal B, silently breaks rig-orthogonality. When such a column exists the basis is
/// recomputed with a column-pivoted QR (rank at rank_rtol), so span(Q) = span(B) exactly. For
/// a full-rank B every column is kept and the result equals simkit's.
/// When nothing is dropped, Q = B R^{-1}: the small triangular R is a change of coordinates
/// from the original basis (use `orthonormalize_factor` to keep a structured B).
///
/// @param B          n x r dense basis.
/// @param M          n x n **diagonal** positive mass (sparse); omitted = identity.
/// @param threshold  row-sum cut-off (simkit default 1e-16).
/// @throws std::invalid_argument if sizes differ, M is not diagonal or has a non-positive
///         diagonal entry.
MatrixXd orthonormalize(const Eigen::Ref<const MatrixXd>& B, double threshold = 1e-16, double rank_rtol = 1e-10);
MatrixXd orthonormalize(const Eigen::Ref<const MatrixXd>& B, const SparseMatrix& M, double threshold = 1e-16,
                        double rank_rtol = 1e-10);

/// Same computation, returning Q together with R and the kept columns.
Orthonormalization orthonormalize_factor(const Eigen::Ref<const MatrixXd>& B, const SparseMatrix& M,
                                         double threshold = 1e-16, double rank_rtol = 1e-10);

/// Diagonal of a sparse matrix that must be diagonal (throws otherwise, naming an
/// off-diagonal entry).
VectorXd diagonal_of(const SparseMatrix& M, const char* what, const char* where);

}  // namespace fastcd
