#include "cd/cd_fixtures.hpp"

namespace fastcd {
namespace {

struct BeamFast {
  Mesh b = beam();
  SparseMatrix Mv = kron_identity(massmatrix(b.X, b.T, 1e3), 2);
  LinearRig rig = affine_handle_rig(b.X, Mv);
  FastCD sys = fast_cd_precompute(b.X, b.T, rig.J, rig.p0);
};

const BeamFast& beam_fast() {
  static const BeamFast f;
  return f;
}

TEST(FastCD, SubspaceClustersAndStructuralOrthogonality) {
  const auto& f = beam_fast();
  EXPECT_EQ(f.sys.B.rows(), 400);
  EXPECT_EQ(f.sys.B.cols(), 60);
  EXPECT_EQ(f.sys.n_rot(), 20);
  EXPECT_LE(f.sys.structural_residual, 1e-10);
  EXPECT_LT(test::max_abs(f.sys.BMB - MatrixXd::Identity(60, 60)), 1e-12);
}

TEST(FastCD, SimkitParityOnTheSeedBeam) {
  const auto ref = test::simkit_reference();
  const auto& f = beam_fast();
  CDState s = fast_cd_initial_state(f.sys);
  FastCDWorkspace ws;
  for (int i = 0; i < 120; ++i) {
    fast_cd_advance(f.sys, s, metronome_pose(f.rig.p0, 2, i), ws);
    const int step = i + 1;
    if (step == 10 || step == 40 || step == 120) {
      const double err = test::relative_error(fast_cd_positions(f.sys, s), test::reference_positions(ref, "positions_reduced", step));
      EXPECT_LE(err, 1e-6) << "step " << step;
      RecordProperty("fast_rel_err_step_" + std::to_string(step), test::sci(err));
    }
  }
}

TEST(FastCD, FoldedIterationsNeverIncreaseTheStepEnergy) {
  const auto& f = beam_fast();
  CDState s = fast_cd_initial_state(f.sys);
  FastCDWorkspace ws;
  for (int i = 0; i < 15; ++i) fast_cd_advance(f.sys, s, metronome_pose(f.rig.p0, 2, i), ws);
  const VectorXd p_next = metronome_pose(f.rig.p0, 2, 15);
  double prev = fast_cd_energy(f.sys, s.s, s.s, s.s_dot, s.p, s.p_dot, p_next);
  for (int it = 1; it <= 10; ++it) {
    const VectorXd z = fast_cd_step(f.sys, s.s, s.s_dot, s.p, s.p_dot, p_next, it);
    const double e = fast_cd_energy(f.sys, z, s.s, s.s_dot, s.p, s.p_dot, p_next);
    EXPECT_LE(e, prev + 1e-9 * std::abs(prev)) << "iteration " << it;
    prev = e;
  }
}

TEST(FastCD, ToleranceStopGivesTheSameAnswerWhenConverged) {
  const auto& f = beam_fast();
  FastCD sys = f.sys;
  sys.options.tolerance = 1e-14;
  const VectorXd z = VectorXd::Zero(60);
  const VectorXd p1 = metronome_pose(f.rig.p0, 2, 3);
  const VectorXd a = fast_cd_step(sys, z, z, f.rig.p0, VectorXd::Zero(6), p1, 200);
  const VectorXd b = fast_cd_step(f.sys, z, z, f.rig.p0, VectorXd::Zero(6), p1, 200);
  EXPECT_LT((a - b).norm(), 1e-10 * b.norm());
}

TEST(FastCD, ThreeDimensionalRigidMotionAndRollout) {
  const test::Small3D t;
  CDOptions o;
  o.modes = 4;
  o.clusters = 6;
  const FastCD sys = fast_cd_precompute(t.m.X, t.m.T, t.rig.J, t.rig.p0, o);
  EXPECT_EQ(sys.B.cols(), 4 * 12);
  EXPECT_LE(sys.structural_residual, 1e-10);
  const Eigen::Matrix3d R = Eigen::AngleAxisd(-0.4, Eigen::Vector3d(0, 1, 1).normalized()).toRotationMatrix();
  MatrixXd A(3, 4);
  A << R, Eigen::Vector3d(1.0, 0.0, -0.5);
  const VectorXd p = A.reshaped();
  const VectorXd zero = VectorXd::Zero(sys.state_dim());
  EXPECT_LT(fast_cd_step(sys, zero, zero, p, VectorXd::Zero(12), p).cwiseAbs().maxCoeff(), 1e-10);
  CDState s = fast_cd_initial_state(sys);
  FastCDWorkspace ws;
  for (int i = 0; i < 30; ++i) {
    fast_cd_advance(sys, s, metronome_pose(t.rig.p0, 3, i, 0.5, 20.0), ws);
    ASSERT_TRUE(s.s.allFinite());
  }
  EXPECT_GT(s.s.norm(), 1e-6);
  const VectorXd u = fast_cd_lift(sys, s.s);
  EXPECT_LE((sys.constraint.C * u).norm() / (MatrixXd(sys.constraint.C).norm() * u.norm()), 1e-10);
}

TEST(FastCD, RejectsBadInput) {
  const auto& f = beam_fast();
  CDOptions o;
  o.clusters = 1000;
  test::expect_throw_with<std::invalid_argument>([&] { fast_cd_precompute(f.b.X, f.b.T, f.rig.J, f.rig.p0, o); }, "1000 clusters");
  o = CDOptions();
  o.modes = 500;
  test::expect_throw_with<std::invalid_argument>([&] { fast_cd_precompute(f.b.X, f.b.T, f.rig.J, f.rig.p0, o); }, "modes requested");
  const VectorXd z = VectorXd::Zero(59);
  test::expect_throw_with<std::invalid_argument>([&] { fast_cd_step(f.sys, z, z, f.rig.p0, f.rig.p0, f.rig.p0); }, "need 60");
}

}  // namespace
}  // namespace fastcd

namespace fastcd {
namespace {

/// The seed's ReducedCD.step written plainly from the reduced operators (no folding, no
/// (cos, sin) coordinates): the reference for both iteration forms of fast_cd_step.
VectorXd seed_reduced_step(const FastCD& sys, const VectorXd& z, const VectorXd& z_dot, const VectorXd& p,
                           const VectorXd& p_dot, const VectorXd& p_next, int iters) {
  const double h = sys.options.h;
  const VectorXd y = z + h * z_dot, q = p_next - (p + h * p_dot);
  VectorXd zz = z, R;
  for (int it = 0; it < iters; ++it) {
    polar_rotations(VectorXd(sys.GB * zz + sys.GJ * p_next), sys.dim, R);
    const VectorXd rhs = sys.BMB * y / (h * h) - sys.BMJ * q / (h * h) + sys.GB.transpose() * R - sys.BLJ * p_next;
    zz = sys.Hr.solve(rhs);
  }
  return zz;
}

TEST(FastCD, FoldedAndPlainIterationsMatchTheSeedsStep) {
  const test::Small3D t;
  for (int modes : {2, 4}) {  // 2 modes: 24 DOFs < 9 * 8 / 2, plain iteration; 4 modes: folded
    CDOptions o;
    o.modes = modes;
    o.clusters = 8;
    const FastCD sys = fast_cd_precompute(t.m.X, t.m.T, t.rig.J, t.rig.p0, o);
    EXPECT_EQ(sys.folded(), modes == 4);
    CDState s = fast_cd_initial_state(sys);
    FastCDWorkspace ws;
    for (int i = 0; i < 8; ++i) fast_cd_advance(sys, s, metronome_pose(t.rig.p0, 3, i, 0.5, 20.0), ws);
    const VectorXd p_next = metronome_pose(t.rig.p0, 3, 8, 0.5, 20.0);
    const VectorXd ours = fast_cd_step(sys, s.s, s.s_dot, s.p, s.p_dot, p_next);
    const VectorXd ref = seed_reduced_step(sys, s.s, s.s_dot, s.p, s.p_dot, p_next, 10);
    EXPECT_LT((ours - ref).norm(), 1e-10 * ref.norm()) << modes << " modes";
  }
  // And the 2D (cos, sin) form on the beam.
  const Mesh b = beam();
  const LinearRig rig = affine_handle_rig(b.X, kron_identity(massmatrix(b.X, b.T, 1e3), 2));
  const FastCD sys = fast_cd_precompute(b.X, b.T, rig.J, rig.p0);
  const VectorXd z = VectorXd::Zero(sys.state_dim()), pd = VectorXd::Zero(6);
  const VectorXd ours = fast_cd_step(sys, z, z, rig.p0, pd, metronome_pose(rig.p0, 2, 7));
  const VectorXd ref = seed_reduced_step(sys, z, z, rig.p0, pd, metronome_pose(rig.p0, 2, 7), 10);
  EXPECT_LT((ours - ref).norm(), 1e-10 * ref.norm());
}

}  // namespace
}  // namespace fastcd
