#pragma once
// project_into_subspace: M-weighted least-squares coordinates of y in span(B).
#include "fastcd/common/types.hpp"

namespace fastcd {

/// z solving (B^T M B) z = B^T M y (M defaults to the identity).
/// @param y  n vector.  @param B  n x r basis (dense or sparse).  @param M  n x n mass.
/// @throws std::invalid_argument on size mismatch; std::runtime_error when B^T M B is
///         singular (B rank-deficient), naming its size.
VectorXd project_into_subspace(const Eigen::Ref<const VectorXd>& y, const Eigen::Ref<const MatrixXd>& B);
VectorXd project_into_subspace(const Eigen::Ref<const VectorXd>& y, const Eigen::Ref<const MatrixXd>& B,
                               const SparseMatrix& M);
VectorXd project_into_subspace(const Eigen::Ref<const VectorXd>& y, const SparseMatrix& B, const SparseMatrix& M);

/// The same solve with precomputed BMB = B^T M B (r x r) and BMy = B^T M y (r).
VectorXd project_into_subspace_normal(const Eigen::Ref<const MatrixXd>& BMB, const Eigen::Ref<const VectorXd>& BMy);

}  // namespace fastcd
