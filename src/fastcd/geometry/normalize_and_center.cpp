#include "fastcd/geometry/normalize_and_center.hpp"

#include "fastcd/common/check.hpp"

namespace fastcd {

NormalizedPositions normalize_and_center(const Eigen::Ref<const MatrixXd>& X) {
  FASTCD_CHECK(X.rows() > 0 && X.cols() > 0, "X is empty (", shape_of(X), ")");
  check_finite(X, "X", "normalize_and_center");
  NormalizedPositions out;
  out.t = -X.colwise().mean();
  out.X = X.rowwise() + out.t;
  const double extent = (out.X.colwise().maxCoeff() - out.X.colwise().minCoeff()).maxCoeff();
  FASTCD_CHECK(extent > 0, "all vertices coincide; cannot scale");
  out.s = 2.0 / extent;
  out.X *= out.s;
  return out;
}

}  // namespace fastcd
