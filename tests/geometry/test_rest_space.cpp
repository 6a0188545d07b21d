// lbs_rest_space_displacements: added to the rest positions before LBS, the displacements land
// on the given ones after it (the glTF morph targets, the rest-space caches and the Blender
// add-on's Mesh Cache all rely on it).
#include "fastcd/geometry/rest_space.hpp"

#include "fastcd/geometry/lbs_jacobian.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_rest_space {

struct Rigged {
  MatrixXd V, W;
  std::vector<VectorXd> poses;
};

/// A random 3D point set with random weights (rows summing to 1, some zero) and random poses
/// near the identity (12 numbers per joint, column-major [L | t]).
Rigged random_rig(Index n, Index joints, int frames, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  Rigged r;
  r.V = MatrixXd::NullaryExpr(n, 3, [&] { return U(gen) - 0.5; });
  r.W = MatrixXd::NullaryExpr(n, joints, [&] { return U(gen); });
  r.W.col(0).head(n / 3).setZero();  // joints of zero weight are skipped
  for (Index v = 0; v < n; ++v) r.W.row(v) /= r.W.row(v).sum();
  for (int f = 0; f < frames; ++f) {
    VectorXd p(12 * joints);
    for (Index j = 0; j < joints; ++j) {
      Eigen::Matrix<double, 3, 4> A = Eigen::Matrix<double, 3, 4>::NullaryExpr([&] { return 0.4 * (U(gen) - 0.5); });
      A.leftCols<3>() += Eigen::Matrix3d::Identity();
      p.segment<12>(12 * j) = A.reshaped();
    }
    r.poses.push_back(p);
  }
  return r;
}

MatrixXd skin(const Rigged& r, const MatrixXd& V, const VectorXd& p) {
  return unflatten(VectorXd(lbs_jacobian(V, r.W) * p), 3);
}

TEST(RestSpaceDisplacements, SkinnedTheyLandOnTheDisplacements) {
  const Rigged r = random_rig(200, 4, 5, 11);
  std::mt19937 gen(3);
  std::uniform_real_distribution<double> U(-0.1, 0.1);
  std::vector<MatrixXd> u;
  for (std::size_t f = 0; f < r.poses.size(); ++f)
    u.push_back(MatrixXd::NullaryExpr(r.V.rows(), 3, [&] { return U(gen); }));
  double cond = 0;
  const std::vector<MatrixXd> d = lbs_rest_space_displacements(r.W, r.poses, u, &cond);
  ASSERT_EQ(d.size(), u.size());
  EXPECT_GE(cond, 1.0);
  for (std::size_t f = 0; f < u.size(); ++f) {
    const MatrixXd moved = skin(r, r.V + d[f], r.poses[f]) - skin(r, r.V, r.poses[f]);
    EXPECT_LT(test::max_abs(moved - u[f]), 1e-13) << "frame " << f;
    EXPECT_GT(test::max_abs(d[f] - u[f]), 1e-3) << "the poses are not the identity: d differs from u";
  }
}

TEST(RestSpaceDisplacements, TheIdentityPoseKeepsThem) {
  const Rigged r = random_rig(50, 3, 1, 5);
  VectorXd id(12 * 3);
  for (Index j = 0; j < 3; ++j) id.segment<12>(12 * j) << 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0;
  const MatrixXd u = MatrixXd::Random(50, 3);
  const std::vector<MatrixXd> d = lbs_rest_space_displacements(r.W, {id}, {u});
  EXPECT_LT(test::max_abs(d[0] - u), 1e-15);
}

TEST(RestSpaceDisplacements, ACollapsedVertexAndBadSizesAreRefused) {
  Rigged r = random_rig(10, 2, 1, 9);
  r.W.setZero();
  r.W.col(0).setOnes();
  r.poses[0].segment<3>(0).setZero();  // joint 0 squashes x: every blend is singular
  test::expect_throw_with<std::invalid_argument>(
      [&] { lbs_rest_space_displacements(r.W, r.poses, {MatrixXd::Zero(10, 3)}); }, "frame 0, vertex 0");
  test::expect_throw_with<std::invalid_argument>(
      [&] { lbs_rest_space_displacements(r.W, r.poses, {MatrixXd::Zero(9, 3)}); }, "the mesh has 10 vertices");
  test::expect_throw_with<std::invalid_argument>(
      [&] { lbs_rest_space_displacements(r.W, {VectorXd::Zero(12)}, {MatrixXd::Zero(10, 3)}); }, "2 joints");
  MatrixXd nan = MatrixXd::Zero(10, 3);
  nan(4, 1) = std::nan("");
  test::expect_throw_with<std::invalid_argument>([&] { lbs_rest_space_displacements(r.W, r.poses, {nan}); },
                                                 "non-finite");
}

}  // namespace test_rest_space
}  // namespace fastcd
