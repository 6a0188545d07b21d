#include "cd/cd_fixtures.hpp"

namespace fastcd {
namespace test_fast_cd {

struct BeamFast {
  Mesh b = beam();
  SparseMatrix Mv = kron_identity(massmatrix(b.X, b.T, 1e3), 2);
  LinearRig rig = affine_handle_rig(b.X, Mv);
  FastCD sys = fast_cd_precompute(b.X, b.T, rig.J, rig.p0);
  SimulationOptions fast_options() const {
    SimulationOptions o;
    o.solver = SolverKind::Fast;
    return o;
  }
};

const BeamFast& beam_fast() {
  static const BeamFast f;
  return f;
}

TEST(FastCD, SubspaceClustersAndStructuralOrthogonality) {
  const auto& f = beam_fast();
  EXPECT_EQ(f.sys.B().rows(), 400);
  EXPECT_EQ(f.sys.B().cols(), 60);
  EXPECT_EQ(f.sys.n_rot(), 20);
  EXPECT_LE(f.sys.structural_residual(), 1e-10);
  EXPECT_LT(test::max_abs(f.sys.reduced_operators().BMB - MatrixXd::Identity(60, 60)), 1e-12);
}

TEST(FastCD, SimkitParityOnTheTutorialBeam) {
  const auto ref = test::simkit_reference();
  const auto& f = beam_fast();
  Simulation sim(f.b.X, f.b.T, f.rig.J, f.rig.p0, f.fast_options());
  for (int i = 0; i < 120; ++i) {
    sim.advance(metronome_pose(f.rig.p0, 2, i));
    const int step = i + 1;
    if (step == 10 || step == 40 || step == 120) {
      const double err =
          test::relative_error(sim.positions(), test::reference_positions(ref, "positions_reduced", step));
      EXPECT_LE(err, 1e-6) << "step " << step;
      RecordProperty("fast_rel_err_step_" + std::to_string(step), test::sci(err));
    }
  }
}

TEST(FastCD, FoldedIterationsNeverIncreaseTheStepEnergy) {
  const auto& f = beam_fast();
  Simulation sim(f.b.X, f.b.T, f.rig.J, f.rig.p0, f.fast_options());
  for (int i = 0; i < 15; ++i) sim.advance(metronome_pose(f.rig.p0, 2, i));
  const CDState& s = sim.state();
  const FastCD& sys = *sim.fast();
  const VectorXd p_next = metronome_pose(f.rig.p0, 2, 15);
  double prev = sys.energy(s.s, s.s, s.s_dot, s.p, s.p_dot, p_next);
  for (int it = 1; it <= 10; ++it) {
    const VectorXd z = sys.step(s.s, s.s_dot, s.p, s.p_dot, p_next, it);
    const double e = sys.energy(z, s.s, s.s_dot, s.p, s.p_dot, p_next);
    EXPECT_LE(e, prev + 1e-9 * std::abs(prev)) << "iteration " << it;
    prev = e;
  }
}

TEST(FastCD, ToleranceStopGivesTheSameAnswerWhenConverged) {
  const auto& f = beam_fast();
  CDOptions o;
  o.tolerance = 1e-14;
  const FastCD sys = fast_cd_precompute(f.b.X, f.b.T, f.rig.J, f.rig.p0, o);
  const VectorXd z = VectorXd::Zero(60);
  const VectorXd p1 = metronome_pose(f.rig.p0, 2, 3);
  const VectorXd a = sys.step(z, z, f.rig.p0, VectorXd::Zero(6), p1, 200);
  const VectorXd b = f.sys.step(z, z, f.rig.p0, VectorXd::Zero(6), p1, 200);
  EXPECT_LT((a - b).norm(), 1e-10 * b.norm());
}

TEST(FastCD, ThreeDimensionalRigidMotionAndRollout) {
  const test::Small3D t;
  CDOptions o;
  o.modes = 4;
  o.clusters = 6;
  const FastCD sys = fast_cd_precompute(t.m.X, t.m.T, t.rig.J, t.rig.p0, o);
  EXPECT_EQ(sys.B().cols(), 4 * 12);
  EXPECT_LE(sys.structural_residual(), 1e-10);
  const Eigen::Matrix3d R = Eigen::AngleAxisd(-0.4, Eigen::Vector3d(0, 1, 1).normalized()).toRotationMatrix();
  MatrixXd A(3, 4);
  A << R, Eigen::Vector3d(1.0, 0.0, -0.5);
  const VectorXd p = A.reshaped();
  const VectorXd zero = VectorXd::Zero(sys.state_dim());
  EXPECT_LT(sys.step(zero, zero, p, VectorXd::Zero(12), p).cwiseAbs().maxCoeff(), 1e-10);
  SimulationOptions so;
  so.solver = SolverKind::Fast;
  so.cd = o;
  Simulation sim(t.m.X, t.m.T, t.rig.J, t.rig.p0, so);
  for (int i = 0; i < 30; ++i) {
    sim.advance(metronome_pose(t.rig.p0, 3, i, 0.5, 20.0));
    ASSERT_TRUE(sim.state().s.allFinite());
  }
  EXPECT_GT(sim.state().s.norm(), 1e-6);
  const VectorXd u = sim.fast()->lift(sim.state().s);
  EXPECT_LE((sys.constraint().C * u).norm() / (MatrixXd(sys.constraint().C).norm() * u.norm()), 1e-10);
  EXPECT_LE(sim.stats().max_residual, 1e-10);
}

TEST(FastCD, RejectsBadInput) {
  const auto& f = beam_fast();
  CDOptions o;
  o.clusters = 1000;
  test::expect_throw_with<std::invalid_argument>([&] { fast_cd_precompute(f.b.X, f.b.T, f.rig.J, f.rig.p0, o); },
                                                 "1000 clusters");
  o = CDOptions();
  o.modes = 500;
  test::expect_throw_with<std::invalid_argument>([&] { fast_cd_precompute(f.b.X, f.b.T, f.rig.J, f.rig.p0, o); },
                                                 "modes requested");
  const VectorXd z = VectorXd::Zero(59);
  test::expect_throw_with<std::invalid_argument>([&] { f.sys.step(z, z, f.rig.p0, f.rig.p0, f.rig.p0); }, "need 60");
}

}  // namespace test_fast_cd
}  // namespace fastcd

namespace fastcd {
namespace test_fast_cd {

/// Tutorial 23's ReducedCD.step written plainly from the reduced operators (no folding, no
/// (cos, sin) coordinates): the reference for both iteration forms of FastCD::step.
VectorXd seed_reduced_step(const FastCD& sys, const VectorXd& z, const VectorXd& z_dot, const VectorXd& p,
                           const VectorXd& p_dot, const VectorXd& p_next, int iters) {
  const double h = sys.options().dt;
  const ReducedOperators& r = sys.reduced_operators();
  const VectorXd y = z + h * z_dot, q = p_next - (p + h * p_dot);
  VectorXd zz = z, R;
  for (int it = 0; it < iters; ++it) {
    polar_rotations(VectorXd(r.GB * zz + r.GJ * p_next), sys.dim(), R);
    const VectorXd rhs = r.BMB * y / (h * h) - r.BMJ * q / (h * h) + r.GB.transpose() * R - r.BLJ * p_next;
    zz = r.Hr.solve(rhs);
  }
  return zz;
}

/// A rig Jacobian not of the scalar-block form J_s (x) I: each output coordinate scaled differently.
SparseMatrix general_form(const SparseMatrix& J) {
  VectorXd sc(J.rows());
  for (Index r = 0; r < J.rows(); ++r) sc(r) = 1.0 + 0.1 * static_cast<double>(r % 3);
  return sc.asDiagonal() * J;
}

TEST(FastCD, FoldedAndPlainIterationsMatchTheTutorialsStep) {
  const test::Small3D t;
  for (int modes : {2, 4}) {  // 2 modes: 24 DOFs < 9 * 8 / 2, plain iteration; 4 modes: folded
    CDOptions o;
    o.modes = modes;
    o.clusters = 8;
    const FastCD sys = fast_cd_precompute(t.m.X, t.m.T, t.rig.J, t.rig.p0, o);
    EXPECT_EQ(sys.folded(), modes == 4);
    SimulationOptions so;
    so.solver = SolverKind::Fast;
    so.cd = o;
    Simulation sim(t.m.X, t.m.T, t.rig.J, t.rig.p0, so);
    for (int i = 0; i < 8; ++i) sim.advance(metronome_pose(t.rig.p0, 3, i, 0.5, 20.0));
    const CDState& s = sim.state();
    const VectorXd p_next = metronome_pose(t.rig.p0, 3, 8, 0.5, 20.0);
    const VectorXd ours = sys.step(s.s, s.s_dot, s.p, s.p_dot, p_next);
    const VectorXd ref = seed_reduced_step(sys, s.s, s.s_dot, s.p, s.p_dot, p_next, 10);
    EXPECT_LT((ours - ref).norm(), 1e-10 * ref.norm()) << modes << " modes";
  }
  // The structured iteration (11 clusters: two tiles of 8, five padded), with an LBS rig (its J
  // is J_s (x) I: the scalar-block form) and with a rig whose J is not of that form (each output
  // coordinate scaled differently: the general form).
  for (const bool lbs : {true, false}) {
    CDOptions o;
    o.modes = 2;
    o.clusters = 11;
    const SparseMatrix J = lbs ? t.rig.J : general_form(t.rig.J);
    const FastCD sys = fast_cd_precompute(t.m.X, t.m.T, J, t.rig.p0, o);
    EXPECT_FALSE(sys.folded());
    EXPECT_EQ(sys.scalar_rig(), lbs);
    const VectorXd z = VectorXd::Random(sys.state_dim()) * 1e-2, zd = VectorXd::Random(sys.state_dim()) * 1e-1;
    const VectorXd pd = VectorXd::Random(12) * 1e-1;
    const VectorXd p1 = metronome_pose(t.rig.p0, 3, 5, 0.5, 20.0);
    const VectorXd ours = sys.step(z, zd, t.rig.p0, pd, p1);
    const VectorXd ref = seed_reduced_step(sys, z, zd, t.rig.p0, pd, p1, 10);
    EXPECT_LT((ours - ref).norm(), 1e-10 * ref.norm()) << (lbs ? "LBS rig" : "general rig");
    // The tolerance stop of the structured iteration: converged, it gives the same answer.
    CDOptions ot = o;
    ot.tolerance = 1e-13;
    const FastCD tol = fast_cd_precompute(t.m.X, t.m.T, J, t.rig.p0, ot);
    const VectorXd many = sys.step(z, zd, t.rig.p0, pd, p1, 300), stopped = tol.step(z, zd, t.rig.p0, pd, p1, 300);
    EXPECT_LT((stopped - many).norm(), 1e-10 * many.norm());
    EXPECT_GT((ours - many).norm(), 0.0);  // (10 iterations had not converged: the comparison means something)
  }
  // And the 2D (cos, sin) form on the beam.
  const Mesh b = beam();
  const LinearRig rig = affine_handle_rig(b.X, kron_identity(massmatrix(b.X, b.T, 1e3), 2));
  const FastCD sys = fast_cd_precompute(b.X, b.T, rig.J, rig.p0);
  const VectorXd z = VectorXd::Zero(sys.state_dim()), pd = VectorXd::Zero(6);
  const VectorXd ours = sys.step(z, z, rig.p0, pd, metronome_pose(rig.p0, 2, 7));
  const VectorXd ref = seed_reduced_step(sys, z, z, rig.p0, pd, metronome_pose(rig.p0, 2, 7), 10);
  EXPECT_LT((ours - ref).norm(), 1e-10 * ref.norm());
  // 2D structured: more clusters than the fold pays for (20 clusters, 2 modes).
  CDOptions o2;
  o2.modes = 2;
  o2.clusters = 20;
  const FastCD s2 = fast_cd_precompute(b.X, b.T, rig.J, rig.p0, o2);
  EXPECT_FALSE(s2.folded());
  EXPECT_TRUE(s2.scalar_rig());
  const VectorXd z2 = VectorXd::Zero(s2.state_dim());
  const VectorXd ours2 = s2.step(z2, z2, rig.p0, pd, metronome_pose(rig.p0, 2, 7));
  const VectorXd ref2 = seed_reduced_step(s2, z2, z2, rig.p0, pd, metronome_pose(rig.p0, 2, 7), 10);
  EXPECT_GT(ref2.norm(), 0.0);
  EXPECT_LT((ours2 - ref2).norm(), 1e-10 * ref2.norm());
}

// Precision::Mixed runs the structured iteration's two products in single precision: its step
// stays within single-precision rounding of the double step (the seed's reference iteration),
// for an even and an odd number of tiles, both rig forms, 2D and 3D, and over a roll-out.
TEST(FastCD, MixedPrecisionStaysWithinSinglePrecisionOfDouble) {
  const test::Small3D t;
  for (const Index clusters : {11, 17, 24}) {  // 2 tiles (one pair), 3 (a pair and a last odd tile), 3
    for (const bool lbs : {true, false}) {
      CDOptions o;
      o.modes = 2;
      o.clusters = static_cast<int>(clusters);
      o.precision = Precision::Mixed;
      const SparseMatrix J = lbs ? t.rig.J : general_form(t.rig.J);
      const FastCD sys = fast_cd_precompute(t.m.X, t.m.T, J, t.rig.p0, o);
      ASSERT_FALSE(sys.folded());
      const VectorXd z = VectorXd::Random(sys.state_dim()) * 1e-2, zd = VectorXd::Random(sys.state_dim()) * 1e-1;
      const VectorXd pd = VectorXd::Random(12) * 1e-1;
      const VectorXd p1 = metronome_pose(t.rig.p0, 3, 5, 0.5, 20.0);
      const VectorXd ours = sys.step(z, zd, t.rig.p0, pd, p1);
      const VectorXd ref = seed_reduced_step(sys, z, zd, t.rig.p0, pd, p1, 10);
      const double rel = (ours - ref).norm() / ref.norm();
      EXPECT_LT(rel, 1e-5) << clusters << " clusters, " << (lbs ? "LBS rig" : "general rig");
      EXPECT_GT(rel, 0.0) << "the single-precision products did not run";
      // Converged (tolerance stop), mixed and double agree as well.
      CDOptions ot = o;
      ot.tolerance = 1e-9;
      const FastCD tol = fast_cd_precompute(t.m.X, t.m.T, J, t.rig.p0, ot);
      const VectorXd many = seed_reduced_step(sys, z, zd, t.rig.p0, pd, p1, 300);
      EXPECT_LT((tol.step(z, zd, t.rig.p0, pd, p1, 300) - many).norm(), 1e-5 * many.norm());
    }
  }
  // A roll-out: 40 steps of a swinging rig, mixed against double. (In a violent motion, where
  // the dynamics amplify any perturbation, mixed and double part as a double run does from a
  // 4e-8 nudge of its state; here the motion is moderate and the gap stays at rounding level.)
  SimulationOptions so;
  so.solver = SolverKind::Fast;
  so.cd.modes = 2;
  so.cd.clusters = 17;
  Simulation dbl(t.m.X, t.m.T, t.rig.J, t.rig.p0, so);
  so.cd.precision = Precision::Mixed;
  Simulation mix(t.m.X, t.m.T, t.rig.J, t.rig.p0, so);
  double gap = 0.0, size = 0.0;
  for (int i = 0; i < 40; ++i) {
    const VectorXd p = metronome_pose(t.rig.p0, 3, i, 0.2, 40.0);
    dbl.advance(p);
    mix.advance(p);
    gap = std::max(gap, (mix.displacement() - dbl.displacement()).norm());
    size = std::max(size, dbl.displacement().norm());
  }
  ASSERT_GT(size, 0.1);
  EXPECT_LT(gap, 1e-5 * size);
  // 2D structured (the beam, 20 clusters: 3 tiles).
  const Mesh b = beam();
  const LinearRig rig = affine_handle_rig(b.X, kron_identity(massmatrix(b.X, b.T, 1e3), 2));
  CDOptions o2;
  o2.modes = 2;
  o2.clusters = 20;
  o2.precision = Precision::Mixed;
  const FastCD s2 = fast_cd_precompute(b.X, b.T, rig.J, rig.p0, o2);
  ASSERT_FALSE(s2.folded());
  const VectorXd z2 = VectorXd::Zero(s2.state_dim()), pd2 = VectorXd::Zero(6);
  const VectorXd ours2 = s2.step(z2, z2, rig.p0, pd2, metronome_pose(rig.p0, 2, 7));
  const VectorXd ref2 = seed_reduced_step(s2, z2, z2, rig.p0, pd2, metronome_pose(rig.p0, 2, 7), 10);
  ASSERT_GT(ref2.norm(), 0.0);
  EXPECT_LT((ours2 - ref2).norm(), 1e-5 * ref2.norm());
  EXPECT_GT((ours2 - ref2).norm(), 0.0);
}

TEST(FastCD, PrecisionNamesAndTheFullSolverRefusesMixed) {
  EXPECT_EQ(precision_from_name("double"), Precision::Double);
  EXPECT_EQ(precision_from_name("mixed"), Precision::Mixed);
  EXPECT_STREQ(precision_name(Precision::Mixed), "mixed");
  EXPECT_STREQ(precision_name(Precision::Double), "double");
  try {
    precision_from_name("half");
    ADD_FAILURE() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("\"half\""), std::string::npos) << e.what();
  }
  const test::Small3D t;
  CDOptions o;
  o.precision = Precision::Mixed;
  try {
    (void)full_cd_precompute(t.m.X, t.m.T, t.rig.J, t.rig.p0, o);
    ADD_FAILURE() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("fast-solver setting"), std::string::npos) << e.what();
  }
}

}  // namespace test_fast_cd
}  // namespace fastcd
