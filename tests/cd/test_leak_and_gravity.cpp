#include <array>

#include "cd/cd_fixtures.hpp"

namespace fastcd {
namespace test_leak_and_gravity {

TEST(LeakField, KindsAndTheirProperties) {
  const Mesh b = beam();
  const VectorXi bnd = boundary_vertices(b.T);
  for (LeakFieldKind kind : {LeakFieldKind::Diffusion, LeakFieldKind::Poisson}) {
    LeakFieldOptions o;
    o.kind = kind;
    const VectorXd D = momentum_leak_field(b.X, b.T, o);
    for (Index i = 0; i < bnd.size(); ++i) EXPECT_EQ(D(bnd(i)), 0.0);  // leaks on the boundary
    EXPECT_NEAR(D.maxCoeff(), 1.0, 1e-15);
    EXPECT_GE(D.minCoeff(), 0.0);
  }
  LeakFieldOptions none;
  none.kind = LeakFieldKind::None;
  EXPECT_EQ(momentum_leak_field(b.X, b.T, none), VectorXd::Ones(200));
  LeakFieldOptions vals;
  vals.kind = LeakFieldKind::Values;
  vals.values = VectorXd::Constant(200, 0.5);
  EXPECT_EQ(momentum_leak_field(b.X, b.T, vals), vals.values);
  vals.values(7) = 1.5;
  test::expect_throw_with<std::invalid_argument>([&] { momentum_leak_field(b.X, b.T, vals); }, "value 7 = 1.5");
  vals.values.resize(3);
  test::expect_throw_with<std::invalid_argument>([&] { momentum_leak_field(b.X, b.T, vals); }, "3 given for 200");
}

TEST(Gravity, SagsTheComplementaryPartAndKeepsTheConstraint) {
  const test::Small3D t;
  CDOptions o;
  o.gravity = Eigen::Vector3d(0, -9.8, 0);
  o.leak.kind = LeakFieldKind::Poisson;
  SimulationOptions so;
  so.cd = o;
  Simulation full_sim(t.m.X, t.m.T, t.rig.J, t.rig.p0, so);
  so.solver = SolverKind::Fast;
  so.cd.modes = 4;
  so.cd.clusters = 8;
  Simulation fast_sim(t.m.X, t.m.T, t.rig.J, t.rig.p0, so);
  for (int i = 0; i < 20; ++i) {
    full_sim.advance(t.rig.p0);  // the rig holds still
    fast_sim.advance(t.rig.p0);
  }
  const FullCD& full = *full_sim.full();
  const VectorXd f_ext = full.Mv() * o.gravity.replicate(t.m.X.rows(), 1);
  const VectorXd uf = flatten(full_sim.displacement()), ur = flatten(fast_sim.displacement());
  for (const VectorXd* u : std::array<const VectorXd*, 2>{&uf, &ur}) {
    const MatrixXd U = unflatten(*u, 3);
    EXPECT_GT(U.norm(), 1e-8);
    // Rig-orthogonal (the D-weighted mean displacement is zero), yet gravity does positive work
    // on it: the tissue where momentum leaks (D < 1) sags.
    EXPECT_LE((full.constraint().C * *u).norm() / (MatrixXd(full.constraint().C).norm() * u->norm()), 1e-10);
    EXPECT_GT(f_ext.dot(*u), 0.0);
  }
  // Wrong-sized gravity is rejected.
  CDOptions bad;
  bad.gravity = Eigen::Vector2d(0, -9.8);
  test::expect_throw_with<std::invalid_argument>([&] { full_cd_precompute(t.m.X, t.m.T, t.rig.J, t.rig.p0, bad); },
                                                 "gravity needs 3");
}

TEST(Gravity, EnergyStillDecreasesPerIteration) {
  const test::Small3D t;
  CDOptions o;
  o.gravity = Eigen::Vector3d(0, -9.8, 0);
  const FullCD full = full_cd_precompute(t.m.X, t.m.T, t.rig.J, t.rig.p0, o);
  const VectorXd z = VectorXd::Zero(full.state_dim()), p = metronome_pose(t.rig.p0, 3, 5, 0.3, 20.0);
  double prev = full.energy(z, z, z, t.rig.p0, VectorXd::Zero(12), p);
  for (int it = 1; it <= 6; ++it) {
    const VectorXd u = full.step(z, z, t.rig.p0, VectorXd::Zero(12), p, it);
    const double e = full.energy(u, z, z, t.rig.p0, VectorXd::Zero(12), p);
    EXPECT_LE(e, prev + 1e-9 * std::abs(prev));
    prev = e;
  }
}

}  // namespace test_leak_and_gravity
}  // namespace fastcd
