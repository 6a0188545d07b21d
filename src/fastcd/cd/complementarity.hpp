#pragma once
// The complementarity constraint J^T M D u = 0 and its independent rows.
#include "fastcd/common/types.hpp"

namespace fastcd {

struct ComplementarityConstraint {
  SparseMatrix C;  ///< #p x #V*dim, C = J^T M D (D lifted to DOFs)
  MatrixXd basis;  ///< rank x #V*dim orthonormal rows spanning the row space of C
  Index rank = 0;  ///< numerical rank kept (<= #p)
};

/// Builds C = J^T Mv kron(diag(D), I_dim) and an orthonormal basis of its row space, with the
/// rank decided by the mass-weighted singular values above rtol * the largest. Rigs whose
/// constraint is rank-deficient (bones whose weights live where D = 0, collinear or coplanar
/// interiors, redundant handles) keep only the independent directions.
/// @throws std::invalid_argument on size mismatches or D outside [0, 1].
ComplementarityConstraint complementarity_constraint(const SparseMatrix& J, const SparseMatrix& Mv,
                                                     const Eigen::Ref<const VectorXd>& D, Index dim,
                                                     double rtol = 1e-10);

}  // namespace fastcd
