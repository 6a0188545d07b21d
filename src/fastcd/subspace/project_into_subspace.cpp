#include "fastcd/subspace/project_into_subspace.hpp"

#include "fastcd/common/check.hpp"
#include "fastcd/common/dense_decompositions.hpp"

namespace fastcd {

VectorXd project_into_subspace_normal(const Eigen::Ref<const MatrixXd>& BMB, const Eigen::Ref<const VectorXd>& BMy) {
  FASTCD_CHECK(BMB.rows() == BMB.cols() && BMB.rows() == BMy.size(), "BMB is ", shape_of(BMB), " and BMy has ",
               BMy.size(), " entries");
  check_finite(BMB, "BMB", "project_into_subspace");
  // Rank check through the singular values: LDLT alone would quietly accept tiny pivots.
  const VectorXd s = Eigen::JacobiSVD<MatrixXd>(BMB).singularValues();
  FASTCD_ENSURE(s.size() == 0 || s(s.size() - 1) > 1e-13 * s(0), "B^T M B (", shape_of(BMB),
                ") is singular (condition ", s(0) / s(s.size() - 1), "): the basis B is rank-deficient");
  return BMB.ldlt().solve(BMy);
}

VectorXd project_into_subspace(const Eigen::Ref<const VectorXd>& y, const Eigen::Ref<const MatrixXd>& B,
                               const SparseMatrix& M) {
  FASTCD_CHECK(B.rows() == y.size() && M.rows() == y.size() && M.cols() == y.size(), "y has ", y.size(),
               " entries, B is ", shape_of(B), ", M is ", shape_of(M));
  const MatrixXd MB = M * B;
  return project_into_subspace_normal(MatrixXd(B.transpose() * MB), VectorXd(MB.transpose() * y));
}

VectorXd project_into_subspace(const Eigen::Ref<const VectorXd>& y, const Eigen::Ref<const MatrixXd>& B) {
  FASTCD_CHECK(B.rows() == y.size(), "y has ", y.size(), " entries, B is ", shape_of(B));
  return project_into_subspace_normal(MatrixXd(B.transpose() * B), VectorXd(B.transpose() * y));
}

VectorXd project_into_subspace(const Eigen::Ref<const VectorXd>& y, const SparseMatrix& B, const SparseMatrix& M) {
  FASTCD_CHECK(B.rows() == y.size() && M.rows() == y.size() && M.cols() == y.size(), "y has ", y.size(),
               " entries, B is ", shape_of(B), ", M is ", shape_of(M));
  const SparseMatrix MB = M * B;
  return project_into_subspace_normal(MatrixXd(SparseMatrix(B.transpose() * MB)), VectorXd(MB.transpose() * y));
}

}  // namespace fastcd
