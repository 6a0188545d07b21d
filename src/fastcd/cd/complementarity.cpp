#include "fastcd/cd/complementarity.hpp"

#include "fastcd/common/check.hpp"
#include "fastcd/geometry/massmatrix.hpp"
#include "fastcd/subspace/lbs_weight_space_constraint.hpp"

namespace fastcd {

ComplementarityConstraint complementarity_constraint(const SparseMatrix& J, const SparseMatrix& Mv,
                                                     const Eigen::Ref<const VectorXd>& D, Index dim, double rtol) {
  check_dim(dim, "complementarity_constraint");
  FASTCD_CHECK(Mv.rows() == J.rows() && Mv.cols() == J.rows(), "Mv is ", shape_of(Mv), " but J is ", shape_of(J));
  FASTCD_CHECK(D.size() * dim == J.rows(), "D has ", D.size(), " entries for ", J.rows() / dim, " vertices");
  for (Index v = 0; v < D.size(); ++v)
    FASTCD_CHECK(D(v) >= 0.0 && D(v) <= 1.0, "D(", v, ") = ", D(v), " is outside [0, 1]");
  ComplementarityConstraint c;
  c.C = SparseMatrix(J.transpose() * Mv * kron_identity(sparse_diagonal(D), dim));
  c.basis = row_space_basis(MatrixXd(c.C), Mv.diagonal(), rtol);
  c.rank = c.basis.rows();
  return c;
}

}  // namespace fastcd
