#include "test_util.hpp"

namespace fastcd {
namespace test_skeleton {

TEST(Skeleton, BoneParentsFollowJoints) {
  MatrixXi BE(4, 2);
  BE << 0, 1, 1, 2, 1, 3, 3, 4;
  const VectorXi P = bone_parents(BE);
  EXPECT_EQ(P, (VectorXi(4) << -1, 0, 0, 2).finished());
  MatrixXi bad(3, 2);
  bad << 0, 1, 5, 1, 1, 2;  // bone 2's base (1) is the tip of bones 0 and 1
  test::expect_throw_with<std::invalid_argument>([&] { bone_parents(bad); }, "two parents");
}

TEST(Skeleton, ForwardKinematics2DRotatesChildrenAboutTheirJoints) {
  MatrixXd C(3, 2);
  C << 0, 0, 1, 0, 2, 0;
  MatrixXi BE(2, 2);
  BE << 0, 1, 1, 2;
  const VectorXi P = bone_parents(BE);
  const VectorXd theta = (VectorXd(2) << 90, 90).finished();
  const MatrixXd off = MatrixXd::Zero(2, 2);
  const auto T = forward_kinematics_2d(C, BE, P, theta, off);
  auto apply = [](const MatrixXd& A, Eigen::Vector2d x) { return Eigen::Vector2d(A.leftCols(2) * x + A.col(2)); };
  // The root turns 90 degrees about (0,0): joint 1 goes to (0,1).
  EXPECT_LT((apply(T[0], {1, 0}) - Eigen::Vector2d(0, 1)).norm(), 1e-14);
  // The child turns a further 90 about joint 1, then follows the root: tip (2,0) -> (-1, 1).
  EXPECT_LT((apply(T[1], {2, 0}) - Eigen::Vector2d(-1, 1)).norm(), 1e-14);
  // Its base stays attached to the parent.
  EXPECT_LT((apply(T[1], {1, 0}) - apply(T[0], {1, 0})).norm(), 1e-14);
  // Root translation offsets move everything.
  const MatrixXd off2 = (MatrixXd(2, 2) << 0.5, -1, 7, 7).finished();  // only the root's row counts
  const auto T2 = forward_kinematics_2d(C, BE, P, theta, off2);
  EXPECT_LT((apply(T2[0], {1, 0}) - Eigen::Vector2d(0.5, 0)).norm(), 1e-14);
}

TEST(Skeleton, ForwardKinematics3DMatchesChainedRigidMotions) {
  MatrixXd C(3, 3);
  C << 0, 0, 0, 0, 1, 0, 0, 2, 0;
  MatrixXi BE(2, 3 - 1);
  BE << 0, 1, 1, 2;
  const VectorXi P = bone_parents(BE);
  const Eigen::Quaterniond q0(Eigen::AngleAxisd(0.3, Eigen::Vector3d::UnitZ()));
  const Eigen::Quaterniond q1(Eigen::AngleAxisd(-0.7, Eigen::Vector3d::UnitX()));
  const Eigen::Vector3d t0(0.1, 0.2, 0.3);
  const auto T = forward_kinematics_3d(C, BE, P, {q0, q1}, {t0, Eigen::Vector3d::Zero()});
  auto apply = [](const MatrixXd& A, const Eigen::Vector3d& x) {
    return Eigen::Vector3d(A.leftCols(3) * x + A.col(3));
  };
  // Root: rotation about joint 0 plus translation.
  const Eigen::Vector3d j1 = q0 * Eigen::Vector3d(0, 1, 0) + t0;
  EXPECT_LT((apply(T[0], {0, 1, 0}) - j1).norm(), 1e-14);
  // Child: attached at joint 1 and rotated by q0 q1 overall.
  EXPECT_LT((apply(T[1], {0, 1, 0}) - j1).norm(), 1e-14);
  const Eigen::Vector3d tip = j1 + (q0 * q1) * Eigen::Vector3d(0, 1, 0);
  EXPECT_LT((apply(T[1], {0, 2, 0}) - tip).norm(), 1e-14);
  for (const auto& A : T) EXPECT_NEAR(A.leftCols(3).determinant(), 1.0, 1e-14);
}

TEST(Skeleton, PosePackingAndNormalisation) {
  MatrixXd A(2, 3);
  A << 1, 2, 3, 4, 5, 6;
  const VectorXd p = pack_affine_pose({A});
  EXPECT_EQ(p, (VectorXd(6) << 1, 4, 2, 5, 3, 6).finished());  // column-major vec([L | t])
  EXPECT_EQ(identity_pose(2, 2), (VectorXd(12) << 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0).finished());
  // normalize_affine: mapping a file point and normalising equals normalising then mapping.
  const Eigen::Vector2d c(3, -1), x(0.7, 2.0);
  const double s = 4.0;
  const MatrixXd An = normalize_affine(A, c, s);
  const Eigen::Vector2d lhs = (A.leftCols(2) * x + A.col(2) - c) / s;
  const Eigen::Vector2d xn = (x - c) / s;
  EXPECT_LT((An.leftCols(2) * xn + An.col(2) - lhs).norm(), 1e-14);
}

}  // namespace test_skeleton
}  // namespace fastcd
