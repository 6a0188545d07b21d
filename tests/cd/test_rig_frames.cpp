// Rig::handle_frame: each handle's affine frame [A | t] at a pose, for the rig kinds that have
// one (LBS bones and handles, FK skeletons, the wire), and a clear refusal for those that do not.
#include <numbers>

#include "test_util.hpp"

namespace fastcd {
namespace test_rig_frames {

Eigen::VectorXd apply(const MatrixXd& frame, const Eigen::VectorXd& y) {
  const Index d = frame.rows();
  return frame.leftCols(d) * y + frame.col(d);
}

MatrixXd identity_frame(Index d) {
  MatrixXd I = MatrixXd::Zero(d, d + 1);
  I.leftCols(d).setIdentity();
  return I;
}

// A vertex with weight 1 on bone k moves exactly by bone k's frame; the frames are the pose's
// [A | t] blocks, and at the identity pose every frame is [I | 0].
TEST(RigFrames, LbsVertexWithWeightOneMovesByItsBonesFrame) {
  for (int d : {2, 3}) {
    const Mesh m = test::mesh_for(d);
    const Index nb = 3, n = d * (d + 1);
    MatrixXd W = MatrixXd::Random(m.X.rows(), nb).cwiseAbs();
    for (Index v = 0; v < m.X.rows(); ++v) W.row(v) /= W.row(v).sum();
    W.row(4).setZero();
    W(4, 1) = 1.0;  // vertex 4 follows bone 1 alone
    W.row(9).setZero();
    W(9, 2) = 1.0;  // vertex 9 bone 2
    const LinearRig rig = lbs_rig(m.X, W, kron_identity(massmatrix(m.X, m.T), d));
    ASSERT_EQ(rig.num_handles(), nb);
    const VectorXd p = identity_pose(nb, d) + 0.3 * VectorXd::Random(nb * n);
    const VectorXd x = rig.positions(p);
    for (Index k = 0; k < nb; ++k) {
      const MatrixXd frame = rig.handle_frame(p, k);
      ASSERT_EQ(frame.rows(), d);
      ASSERT_EQ(frame.cols(), d + 1);
      EXPECT_TRUE(VectorXd(frame.reshaped()) ==
                  VectorXd(p.segment(k * n, n)));  // column-major [A | t], lbs_jacobian's layout
      EXPECT_TRUE(rig.handle_frame(identity_pose(nb, d), k) == identity_frame(d));
    }
    for (const auto& [v, k] : {std::pair<Index, Index>{4, 1}, {9, 2}}) {
      const VectorXd moved = apply(rig.handle_frame(p, k), m.X.row(v).transpose());
      EXPECT_LT((moved - x.segment(v * d, d)).norm(), 1e-14 * (1.0 + moved.norm())) << "dim " << d;
    }
  }
}

TEST(RigFrames, AffineAndPointHandleRigs) {
  const Mesh m = test::mesh2d();
  const SparseMatrix Mv = kron_identity(massmatrix(m.X, m.T), 2);
  const LinearRig affine = affine_handle_rig(m.X, Mv);
  ASSERT_EQ(affine.num_handles(), 1);
  const VectorXd p = metronome_pose(affine.rest_params(), 2, 20);
  const VectorXd x = affine.positions(p);
  for (Index v = 0; v < m.X.rows(); ++v)
    EXPECT_LT((apply(affine.handle_frame(p, 0), m.X.row(v).transpose()) - x.segment(2 * v, 2)).norm(), 1e-13);
  // Point handles are affine bones pinned at their vertices: the handle vertex follows its frame.
  const std::vector<Index> handles{0, 12, 23};
  const LinearRig points = point_handle_rig(m.X, m.T, handles, Mv);
  ASSERT_EQ(points.num_handles(), 3);
  MatrixXd frame = identity_frame(2);
  frame.leftCols(2) = Eigen::Rotation2Dd(0.4).toRotationMatrix();
  frame.col(2) << 0.2, -0.5;
  VectorXd q = points.rest_params();
  q.segment(6, 6) = frame.reshaped();
  EXPECT_TRUE(points.handle_frame(q, 1) == frame);
  EXPECT_LT((apply(frame, m.X.row(12).transpose()) - points.positions(q).segment(24, 2)).norm(), 1e-12);
}

// FK skeletons: the rig's frames are the bones' FK transforms, each composing its parent's: the
// child's frame is the parent's frame after the child's own rotation about its base joint.
TEST(RigFrames, ForwardKinematicsBonesComposeTheirParents2D) {
  MatrixXd C(4, 2);
  C << 0, 0, 1, 0, 2, 0.2, 3, 0.1;
  MatrixXi BE(3, 2);
  BE << 0, 1, 1, 2, 2, 3;
  const VectorXi P = bone_parents(BE);
  const VectorXd theta = (VectorXd(3) << 30, -45, 60).finished();
  // (The 2D release's root offset translates the root bones only, after FK: composition holds
  // without it.)
  const VectorXd p = pack_affine_pose(forward_kinematics_2d(C, BE, P, theta, MatrixXd::Zero(3, 2)));
  const Mesh m = test::mesh2d();
  const MatrixXd W = MatrixXd::Constant(m.X.rows(), 3, 1.0 / 3.0);
  const LinearRig rig = lbs_rig(m.X, W, kron_identity(massmatrix(m.X, m.T), 2));
  const double r = std::numbers::pi / 180.0;
  for (Index b = 1; b < 3; ++b) {
    const MatrixXd parent = rig.handle_frame(p, P(b)), child = rig.handle_frame(p, b);
    const Eigen::Matrix<double, 2, 3> local = rotation_about_2d(theta(b) * r, C.row(BE(b, 0)).transpose());
    MatrixXd composed(2, 3);
    composed << parent.leftCols(2) * local.leftCols(2), parent.leftCols(2) * local.col(2) + parent.col(2);
    EXPECT_LT((child - composed).norm(), 1e-14) << "bone " << b;
    // The child's base joint stays on the parent.
    EXPECT_LT((apply(child, C.row(BE(b, 0)).transpose()) - apply(parent, C.row(BE(b, 0)).transpose())).norm(), 1e-14);
  }
}

TEST(RigFrames, ForwardKinematicsBonesComposeTheirParents3D) {
  MatrixXd C(4, 3);
  C << 0, 0, 0, 0, 1, 0, 0.2, 2, 0, 0.1, 3, 0.3;
  MatrixXi BE(3, 2);
  BE << 0, 1, 1, 2, 2, 3;
  const VectorXi P = bone_parents(BE);
  const std::vector<Eigen::Quaterniond> dQ{
      Eigen::Quaterniond(Eigen::AngleAxisd(0.3, Eigen::Vector3d::UnitZ())),
      Eigen::Quaterniond(Eigen::AngleAxisd(-0.7, Eigen::Vector3d::UnitX())),
      Eigen::Quaterniond(Eigen::AngleAxisd(0.5, Eigen::Vector3d(1, 1, 0).normalized()))};
  const std::vector<Eigen::Vector3d> dT{Eigen::Vector3d(0.1, 0.2, 0.3), Eigen::Vector3d::Zero(),
                                        Eigen::Vector3d(0, 0.05, 0)};
  const VectorXd p = pack_affine_pose(forward_kinematics_3d(C, BE, P, dQ, dT));
  const Mesh m = test::mesh3d();
  const LinearRig rig =
      lbs_rig(m.X, MatrixXd::Constant(m.X.rows(), 3, 1.0 / 3.0), kron_identity(massmatrix(m.X, m.T), 3));
  for (Index b = 1; b < 3; ++b) {
    const MatrixXd parent = rig.handle_frame(p, P(b)), child = rig.handle_frame(p, b);
    // Rotation: the parent's times the bone's own; the base joint r maps to the parent's image of
    // r + dT (libigl's convention, skeleton.hpp).
    const Eigen::Matrix3d A = parent.leftCols(3) * dQ[b].toRotationMatrix();
    EXPECT_LT((child.leftCols(3) - A).norm(), 1e-14) << "bone " << b;
    const Eigen::Vector3d r = C.row(BE(b, 0)).transpose();
    EXPECT_LT((apply(child, r) - apply(parent, r + dT[b])).norm(), 1e-14) << "bone " << b;
    EXPECT_NEAR(child.leftCols(3).determinant(), 1.0, 1e-14);
  }
}

// The wire: handle k's frame is the rigid frame of its curve sample; a vertex bound to that
// sample moves exactly by it, and a rigid motion of all handles is every handle's frame.
TEST(RigFrames, WireHandleFramesAreTheirSamplesFrames) {
  const Index n = 10;
  MatrixXd C(4, 2);
  C << 0, 0, 1, 0.2, 2, -0.1, 3, 0.3;
  MatrixXd X(C.rows() * 2, 2);  // two vertices near each handle: bound to the handle's sample
  for (Index k = 0; k < C.rows(); ++k) {
    X.row(2 * k) = C.row(k) + Eigen::RowVector2d(0.01, 0.05);
    X.row(2 * k + 1) = C.row(k) + Eigen::RowVector2d(-0.01, -0.04);
  }
  const WireRig rig(X, C, static_cast<int>(n));
  const WireDeformer w = wire_deformer_precompute(X, C, static_cast<int>(n));
  ASSERT_EQ(rig.num_handles(), 4);
  VectorXd p = rig.rest_params();
  for (Index k = 0; k < 4; ++k) EXPECT_LT((rig.handle_frame(p, k) - identity_frame(2)).norm(), 1e-14);
  p += 0.2 * VectorXd::Random(p.size());
  const VectorXd x = rig.positions(p);
  int bound = 0;
  for (Index v = 0; v < X.rows(); ++v) {
    if (w.closest(v) % n != 0) continue;
    const Index k = w.closest(v) / n;
    const MatrixXd frame = rig.handle_frame(p, k);
    EXPECT_NEAR(frame.leftCols(2).determinant(), 1.0, 1e-14);
    EXPECT_LT((apply(frame, X.row(v).transpose()) - x.segment(2 * v, 2)).norm(), 1e-13) << "vertex " << v;
    ++bound;
  }
  EXPECT_EQ(bound, static_cast<int>(X.rows()));
  const Eigen::Matrix2d R = Eigen::Rotation2Dd(0.9).toRotationMatrix();
  const Eigen::Vector2d t(0.4, -1.0);
  const MatrixXd C1 = (C * R.transpose()).rowwise() + t.transpose();
  MatrixXd rigid(2, 3);
  rigid << R, t;
  const MatrixXd C1t = C1.transpose();
  const VectorXd p1 = Eigen::Map<const VectorXd>(C1t.data(), C1t.size());
  for (Index k = 0; k < 4; ++k) EXPECT_LT((rig.handle_frame(p1, k) - rigid).norm(), 1e-13) << "handle " << k;
}

TEST(RigFrames, KindsWithoutFramesSaySo) {
  const Mesh m = test::mesh2d();
  const SparseMatrix Mv = kron_identity(massmatrix(m.X, m.T), 2);
  MatrixXd cage(4, 2);
  cage << -1, -1, 10, -1, 10, 10, -1, 10;
  MatrixXi edges(4, 2);
  edges << 0, 1, 1, 2, 2, 3, 3, 0;
  const LinearRig c = cage_rig(m.X, cage, edges);
  EXPECT_EQ(c.num_handles(), 4);
  test::expect_throw_with<std::invalid_argument>([&] { c.handle_frame(c.rest_params(), 0); },
                                                 "handles are points (cage vertices)");
  const LinearRig bare(lbs_jacobian(m.X, MatrixXd::Ones(m.X.rows(), 1)), identity_pose(1, 2), 2, "lbs");
  EXPECT_EQ(bare.num_handles(), 0);
  test::expect_throw_with<std::invalid_argument>([&] { bare.handle_frame(bare.rest_params(), 0); },
                                                 "built from a bare Jacobian");
  const LinearRig declared(bare.J, bare.p0, 2, "lbs", RigParams::AffineHandles);
  EXPECT_TRUE(declared.handle_frame(declared.rest_params(), 0) == identity_frame(2));
  test::expect_throw_with<std::invalid_argument>([&] { declared.handle_frame(declared.rest_params(), 1); },
                                                 "has 1 handles, asked for the frame of handle 1");
  test::expect_throw_with<std::invalid_argument>([&] { declared.handle_frame(VectorXd::Zero(5), 0); },
                                                 "p has 5 entries");
  test::expect_throw_with<std::invalid_argument>(
      [&] { LinearRig(SparseMatrix(bare.J.leftCols(5)), VectorXd::Zero(5), 2, "x", RigParams::AffineHandles); },
      "needs 6 parameters per handle");
}

}  // namespace test_rig_frames
}  // namespace fastcd
