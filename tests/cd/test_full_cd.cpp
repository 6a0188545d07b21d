#include "cd/cd_fixtures.hpp"

namespace fastcd {
namespace test_full_cd {

struct BeamFull {
  Mesh b = beam();
  SparseMatrix Mv = kron_identity(massmatrix(b.X, b.T, 1e3), 2);
  LinearRig rig = affine_handle_rig(b.X, Mv);
  FullCD sys = full_cd_precompute(b.X, b.T, rig.J, rig.p0);
};

const BeamFull& beam_full() {
  static const BeamFull f;
  return f;
}

TEST(FullCD, SimkitParityOnTheTutorialBeam) {
  const auto ref = test::simkit_reference();
  const auto& f = beam_full();
  EXPECT_EQ(f.sys.constraint().rank, 6);
  Simulation sim(f.b.X, f.b.T, f.rig.J, f.rig.p0);
  double max_violation = 0.0, max_rel = 0.0;
  for (int i = 0; i < 120; ++i) {
    sim.advance(metronome_pose(f.rig.p0, 2, i));
    const VectorXd& uc = sim.state().s;
    const VectorXd Cu = f.sys.constraint().C * uc;
    max_violation = std::max(max_violation, Cu.norm());
    if (uc.norm() > 0) max_rel = std::max(max_rel, Cu.norm() / (MatrixXd(f.sys.constraint().C).norm() * uc.norm()));
    const int step = i + 1;
    if (step == 10 || step == 40 || step == 120) {
      const double err = test::relative_error(sim.positions(), test::reference_positions(ref, "positions_full", step));
      EXPECT_LE(err, 1e-8) << "step " << step;
      RecordProperty("full_rel_err_step_" + std::to_string(step), test::sci(err));
    }
  }
  EXPECT_LE(max_rel, 1e-10);
  EXPECT_LE(sim.stats().max_residual, 1e-10);  // the simulation's own measure agrees
  EXPECT_LE(max_violation, 1e-10);             // simkit: 1.2e-13
}

TEST(FullCD, IterationsNeverIncreaseTheStepEnergy) {
  const auto& f = beam_full();
  Simulation sim(f.b.X, f.b.T, f.rig.J, f.rig.p0);
  for (int i = 0; i < 12; ++i) sim.advance(metronome_pose(f.rig.p0, 2, i));
  const CDState& s = sim.state();
  const VectorXd p_next = metronome_pose(f.rig.p0, 2, 12);
  double prev = f.sys.energy(s.s, s.s, s.s_dot, s.p, s.p_dot, p_next);
  for (int it = 1; it <= 10; ++it) {
    const VectorXd u = f.sys.step(s.s, s.s_dot, s.p, s.p_dot, p_next, it);
    const double e = f.sys.energy(u, s.s, s.s_dot, s.p, s.p_dot, p_next);
    EXPECT_LE(e, prev * (1 + 1e-12)) << "iteration " << it;
    prev = e;
  }
}

TEST(FullCD, RigidRigMotionAtRestLeavesNoComplementaryDisplacement) {
  const test::Small3D t;
  const FullCD sys = full_cd_precompute(t.m.X, t.m.T, t.rig.J, t.rig.p0);
  // A rotated and translated pose held still: p = p_next, zero velocities.
  const Eigen::Matrix3d R = Eigen::AngleAxisd(0.7, Eigen::Vector3d(1, 2, 3).normalized()).toRotationMatrix();
  MatrixXd A(3, 4);
  A << R, Eigen::Vector3d(0.3, -1.0, 2.0);
  const VectorXd p = A.reshaped();
  const VectorXd zero = VectorXd::Zero(sys.state_dim());
  const VectorXd u = sys.step(zero, zero, p, VectorXd::Zero(12), p);
  EXPECT_LT(u.cwiseAbs().maxCoeff(), 1e-10);
}

TEST(FullCD, ThreeDimensionalRolloutKeepsTheConstraint) {
  const test::Small3D t;
  Simulation sim(t.m.X, t.m.T, t.rig.J, t.rig.p0);
  const FullCD& sys = *sim.full();
  EXPECT_EQ(sys.constraint().rank, 12);
  const CDState& s = sim.state();
  const double Cn = MatrixXd(sys.constraint().C).norm();
  for (int i = 0; i < 30; ++i) {
    VectorXd p = metronome_pose(t.rig.p0, 3, i, 0.5, 20.0);
    p(p.size() - 1) = 0.3 * std::sin(0.2 * i);  // move in z too
    sim.advance(p);
    ASSERT_TRUE(s.s.allFinite());
    if (s.s.norm() > 0) {
      EXPECT_LE((sys.constraint().C * s.s).norm() / (Cn * s.s.norm()), 1e-10) << "step " << i;
    }
  }
  EXPECT_GT(s.s.norm(), 1e-6);  // there is secondary motion
}

TEST(FullCD, RankDeficientRigIsReducedAndStillHolds) {
  // Two identical bones (duplicated handle) plus a bone living only on the surface where
  // D = 0: the constraint J^T M D has 36 rows but rank 12.
  const test::Small3D t;
  const Index n = t.m.X.rows();
  MatrixXd Wb = MatrixXd::Zero(n, 3);
  Wb.col(0).setConstant(0.5);
  Wb.col(1).setConstant(0.5);
  const VectorXd D = momentum_leak_field(t.m.X, t.m.T);
  for (Index v = 0; v < n; ++v)
    if (D(v) == 0.0) Wb(v, 2) = 1.0;
  const SparseMatrix J = lbs_jacobian(t.m.X, Wb);
  VectorXd p0 = VectorXd::Zero(36);
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 3; ++i) p0(b * 12 + i * 3 + i) = 1.0;
  // surface-only bone at identity too would double-count; keep it at zero (rest = J p0).
  Simulation sim(t.m.X, t.m.T, J, p0);
  const FullCD& sys = *sim.full();
  EXPECT_EQ(sys.constraint().rank, 12);
  const CDState& s = sim.state();
  const double Cn = MatrixXd(sys.constraint().C).norm();
  for (int i = 0; i < 15; ++i) {
    VectorXd p = p0;
    p(9) = 0.4 * std::sin(0.3 * i);   // translate bone 0
    p(35) = 0.1 * std::sin(0.5 * i);  // and the surface bone
    sim.advance(p);
    ASSERT_TRUE(s.s.allFinite());
    if (s.s.norm() > 0) {
      EXPECT_LE((sys.constraint().C * s.s).norm() / (Cn * s.s.norm()), 1e-10);
    }
  }
}

// An LBS rig's J is J_s (x) I, so the constrained solve runs on the scalar blocks. The same rig
// with one extra, unused parameter (a zero column: no longer of that form) takes the general
// path; both give the same steps, with and without fixed vertices.
void expect_scalar_path_matches_general(const Mesh& m, const LinearRig& rig) {
  SparseMatrix J2 = rig.J;
  J2.conservativeResize(J2.rows(), J2.cols() + 1);
  VectorXd p02(rig.p0.size() + 1);
  p02 << rig.p0, 0.0;
  for (const bool fixed : {false, true}) {
    SimulationOptions o;
    if (fixed) o.cd.fixed = (VectorXi(2) << 0, 5).finished();
    Simulation a(m.X, m.T, rig.J, rig.p0, o), b(m.X, m.T, J2, p02, o);
    EXPECT_TRUE(a.full()->scalar_constraint());
    EXPECT_FALSE(b.full()->scalar_constraint());
    const ComplementarityConstraint &ca = a.full()->constraint(), &cb = b.full()->constraint();
    EXPECT_EQ(ca.basis.rows(), cb.basis.rows());
    EXPECT_EQ(ca.rank, cb.rank);
    EXPECT_EQ(ca.fixed_dofs, cb.fixed_dofs);
    EXPECT_EQ(ca.basis_scalar.rows() * 3, ca.basis.rows());
    EXPECT_EQ(cb.basis_scalar.rows(), 0);
    // Both orthonormal, spanning the same rows.
    const Index r = ca.basis.rows();
    EXPECT_LT((ca.basis * ca.basis.transpose() - MatrixXd::Identity(r, r)).norm(), 1e-12);
    EXPECT_LT((ca.basis - ca.basis * cb.basis.transpose() * cb.basis).norm(), 1e-10);
    for (int i = 0; i < 12; ++i) {
      const VectorXd p = metronome_pose(rig.p0, 3, i, 0.5, 20.0);
      VectorXd p2(p.size() + 1);
      p2 << p, 0.0;
      a.advance(p);
      b.advance(p2);
    }
    const VectorXd& ua = a.state().s;
    EXPECT_GT(ua.norm(), 1e-6);
    EXPECT_LT((ua - b.state().s).norm(), 1e-10 * ua.norm()) << (fixed ? "with fixed vertices" : "");
    const double Cn = MatrixXd(a.full()->constraint().C).norm();
    EXPECT_LE((a.full()->constraint().C * ua).norm() / (Cn * ua.norm()), 1e-10);
    if (fixed) {
      EXPECT_LE(ua.segment(15, 3).norm() + ua.head(3).norm(), 1e-12);
    }
  }
}

TEST(FullCD, ScalarBlockConstraintMatchesTheGeneralOne) {
  const test::Small3D t;  // one affine handle: 4 scalar rows (one partly empty SIMD batch)
  expect_scalar_path_matches_general(t.m, t.rig);
}

TEST(FullCD, ScalarBlockConstraintWithManyBones) {
  // 11 bones with hat weights along x: over 32 scalar rows, more than the correction's 32-row register
  // block and not a multiple of its 8-row batches.
  const test::Small3D t(18, 4, 4);
  const Index nb = 11;
  const double x0 = t.m.X.col(0).minCoeff(), x1 = t.m.X.col(0).maxCoeff();
  MatrixXd W = MatrixXd::Zero(t.m.X.rows(), nb);
  for (Index v = 0; v < W.rows(); ++v) {
    const double s = (t.m.X(v, 0) - x0) / (x1 - x0) * static_cast<double>(nb - 1);
    for (Index k = 0; k < nb; ++k) W(v, k) = std::max(0.0, 1.0 - std::abs(s - static_cast<double>(k)));
  }
  const LinearRig rig = lbs_rig(t.m.X, W, t.Mv);
  Simulation probe(t.m.X, t.m.T, rig.J, rig.p0);
  const Index rs = probe.full()->constraint().basis_scalar.rows();
  ASSERT_GT(rs, 32);
  ASSERT_NE(rs % 8, 0);
  expect_scalar_path_matches_general(t.m, rig);
}

TEST(FullCD, CollinearInteriorRankIsDetected) {
  // 6 x 3 x 3 grid: every vertex with D > 0 lies on the centre line, so J^T M D of an affine
  // handle (12 rows) has rank 6 (rotations about that line and stretches across it vanish).
  const test::Small3D t(6, 3, 3);
  Simulation sim(t.m.X, t.m.T, t.rig.J, t.rig.p0);
  const FullCD& sys = *sim.full();
  EXPECT_EQ(sys.constraint().rank, 6);
  const CDState& s = sim.state();
  const double Cn = MatrixXd(sys.constraint().C).norm();
  for (int i = 0; i < 10; ++i) {
    sim.advance(metronome_pose(t.rig.p0, 3, i, 0.5, 20.0));
    ASSERT_TRUE(s.s.allFinite());
  }
  EXPECT_LE((sys.constraint().C * s.s).norm() / (Cn * s.s.norm()), 1e-10);
}

TEST(FullCD, RejectsBadInput) {
  const auto& f = beam_full();
  CDOptions bad;
  bad.dt = -1;
  test::expect_throw_with<std::invalid_argument>([&] { full_cd_precompute(f.b.X, f.b.T, f.rig.J, f.rig.p0, bad); },
                                                 "time step dt");
  test::expect_throw_with<std::invalid_argument>([&] { full_cd_precompute(f.b.X, f.b.T, f.rig.J, VectorXd::Zero(5)); },
                                                 "p0 has 5");
  const VectorXd z = VectorXd::Zero(400);
  test::expect_throw_with<std::invalid_argument>([&] { f.sys.step(z, z, f.rig.p0, f.rig.p0, VectorXd::Zero(3)); },
                                                 "rig poses need 6");
  VectorXd nan = z;
  nan(3) = std::nan("");
  test::expect_throw_with<std::invalid_argument>([&] { f.sys.step(nan, z, f.rig.p0, f.rig.p0, f.rig.p0); },
                                                 "non-finite");
}

}  // namespace test_full_cd
}  // namespace fastcd
