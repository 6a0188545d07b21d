#include "test_util.hpp"

namespace fastcd {
namespace test_normalize_and_center {

TEST(NormalizeAndCenter, CentroidZeroLargestExtentTwo) {
  const Mesh m = test::mesh3d();
  const NormalizedPositions r = normalize_and_center(m.X * 3.0);
  EXPECT_LT(r.X.colwise().mean().norm(), 1e-14);
  EXPECT_NEAR((r.X.colwise().maxCoeff() - r.X.colwise().minCoeff()).maxCoeff(), 2.0, 1e-14);
  EXPECT_LT(test::max_abs(((m.X * 3.0).rowwise() + r.t) * r.s - r.X), 1e-14);
}

TEST(NormalizeAndCenter, RejectsDegenerateInput) {
  test::expect_throw_with<std::invalid_argument>([] { normalize_and_center(MatrixXd::Ones(4, 2)); }, "coincide");
  test::expect_throw_with<std::invalid_argument>([] { normalize_and_center(MatrixXd(0, 2)); }, "empty");
}

}  // namespace test_normalize_and_center
}  // namespace fastcd
