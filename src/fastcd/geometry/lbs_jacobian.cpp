#include "fastcd/geometry/lbs_jacobian.hpp"

#include "fastcd/common/check.hpp"

namespace fastcd {

SparseMatrix lbs_jacobian(const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXd>& W) {
  FASTCD_CHECK(V.cols() >= 1, "V must have at least one column, got ", shape_of(V));
  FASTCD_CHECK(W.rows() == V.rows(), "W must have one row per vertex: V is ", shape_of(V), ", W is ", shape_of(W));
  check_finite(V, "V", "lbs_jacobian");
  check_finite(W, "W", "lbs_jacobian");
  const Index n = V.rows(), d = V.cols(), nb = W.cols();
  std::vector<Triplet> trip;
  trip.reserve(static_cast<std::size_t>(n * d * nb * (d + 1)));
  for (Index v = 0; v < n; ++v)
    for (Index b = 0; b < nb; ++b) {
      const double w = W(v, b);
      if (w == 0.0) continue;
      for (Index c = 0; c <= d; ++c) {
        const double vc = (c < d) ? V(v, c) : 1.0;
        for (Index r = 0; r < d; ++r) trip.emplace_back(v * d + r, (b * (d + 1) + c) * d + r, w * vc);
      }
    }
  SparseMatrix J(n * d, nb * d * (d + 1));
  J.setFromTriplets(trip.begin(), trip.end());
  return J;
}

}  // namespace fastcd
