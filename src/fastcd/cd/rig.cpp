#include "fastcd/cd/rig.hpp"

#include <cmath>
#include <numbers>

#include "fastcd/common/check.hpp"
#include "fastcd/common/layout.hpp"
#include "fastcd/geometry/lbs_jacobian.hpp"
#include "fastcd/subspace/project_into_subspace.hpp"

namespace fastcd {

VectorXd rig_rest(const SparseMatrix& J, const SparseMatrix& Mv, const Eigen::Ref<const MatrixXd>& X) {
  FASTCD_CHECK(J.rows() == X.size(), "J has ", J.rows(), " rows for ", X.rows(), " vertices in ",
               X.cols(), "D (", X.size(), " DOFs)");
  return project_into_subspace(flatten(X), J, Mv);
}

Rig lbs_rig(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXd>& W, const SparseMatrix& Mv) {
  Rig rig;
  rig.J = lbs_jacobian(X, W);
  rig.p0 = rig_rest(rig.J, Mv, X);
  return rig;
}

Rig affine_handle_rig(const Eigen::Ref<const MatrixXd>& X, const SparseMatrix& Mv) {
  return lbs_rig(X, MatrixXd::Ones(X.rows(), 1), Mv);
}

VectorXd metronome_pose(const Eigen::Ref<const VectorXd>& p0, Index dim, int i, double amp, double period) {
  FASTCD_CHECK(p0.size() >= dim && dim >= 1, "pose has ", p0.size(), " entries, dim is ", dim);
  FASTCD_CHECK(period > 0, "period must be > 0, got ", period);
  VectorXd p = p0;
  p(p.size() - dim) = amp * std::sin(2.0 * std::numbers::pi * i / period);
  return p;
}

}  // namespace fastcd
