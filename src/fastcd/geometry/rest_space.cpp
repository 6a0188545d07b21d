#include "fastcd/geometry/rest_space.hpp"

#include <Eigen/LU>
#include <cmath>

#include "fastcd/common/check.hpp"

namespace fastcd {

std::vector<MatrixXd> lbs_rest_space_displacements(const Eigen::Ref<const MatrixXd>& W,
                                                   const std::vector<VectorXd>& poses, const std::vector<MatrixXd>& U,
                                                   double* worst_condition) {
  const Index J = W.cols(), V = W.rows();
  FASTCD_CHECK(poses.size() == U.size(), "poses and displacements differ in frames: ", poses.size(), " and ", U.size());
  std::vector<MatrixXd> out(U.size());
  double worst = 1;
  for (std::size_t f = 0; f < U.size(); ++f) {
    FASTCD_CHECK(poses[f].size() == 12 * J, "frame ", f, ": pose has ", poses[f].size(), " numbers, the skin ", J,
                 " joints (", 12 * J, ")");
    FASTCD_CHECK(U[f].rows() == V && U[f].cols() == 3, "frame ", f, ": displacements ", shape_of(U[f]),
                 ", the mesh has ", V, " vertices");
    FASTCD_CHECK(U[f].allFinite(), "frame ", f, ": non-finite displacement");
    out[f].resize(V, 3);
    for (Index v = 0; v < V; ++v) {
      Eigen::Matrix3d L = Eigen::Matrix3d::Zero();
      for (Index j = 0; j < J; ++j) {
        const double w = W(v, j);
        if (w == 0) continue;
        L += w * Eigen::Map<const Eigen::Matrix<double, 3, 4>>(poses[f].data() + 12 * j).leftCols<3>();
      }
      const Eigen::Matrix3d Li = L.inverse();
      const double cond = L.norm() * Li.norm();
      FASTCD_CHECK(std::isfinite(cond) && cond < 1e8, "frame ", f, ", vertex ", v,
                   ": the blended skinning matrix is singular (condition ", cond,
                   "): the rig collapses this vertex, so no rest-space displacement reaches its simulated position");
      worst = std::max(worst, cond);
      out[f].row(v) = (Li * U[f].row(v).transpose()).transpose();
    }
  }
  if (worst_condition != nullptr) *worst_condition = worst;
  return out;
}

}  // namespace fastcd
