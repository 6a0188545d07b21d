// The solver interface (issue 34, item 3): one factory builds either adapter from its
// SolverKind, each refuses what its solver cannot take, copies are independent, and the full
// solver's measures are the full vectors' (the divergence monitor's vector form).
#include "cd_fixtures.hpp"

namespace fastcd {
namespace test_cd_solver {

TEST(CDSolver, TheFactoryBuildsEachKind) {
  const test::Small3D s;
  for (const SolverKind kind : solver_kinds()) {
    EXPECT_EQ(solver_kind(to_string(kind)), kind);
    const SimulationOptions o = test::small_options(kind, 4, 6);
    const std::unique_ptr<CDSolver> solver = make_cd_solver(s.m.X, s.m.T, s.rig, o);
    EXPECT_EQ(solver->kind(), kind);
    EXPECT_EQ(solver->full() != nullptr, kind == SolverKind::Full);
    EXPECT_EQ(solver->fast() != nullptr, kind == SolverKind::Fast);
    EXPECT_GT(solver->memory_bytes(), 0u);
    const PrecomputeBytes b = precompute_bytes(kind, s.m.T, s.m.X.rows(), s.rig, &s.rig.J, o.cd);
    EXPECT_GT(b.mesh, 0.0);
    EXPECT_GT(b.rig, 0.0);
  }
  test::expect_throw_with<std::invalid_argument>([] { solver_kind("medium"); }, "solver must be 'full' or 'fast'");
}

TEST(CDSolver, TheFastSolverRefusesANonlinearRig) {
  const Mesh b = beam(20, 4);
  const WireRig wire(b.X, (MatrixXd(3, 2) << -2, 0, 0, 0.2, 2, 0).finished());
  SimulationOptions o;
  o.solver = SolverKind::Fast;
  test::expect_throw_with<std::invalid_argument>([&] { make_cd_solver(b.X, b.T, wire, o); },
                                                 "the fast solver needs a linear rig");
}

TEST(CDSolver, CopiesStepIndependently) {
  const test::Small3D s;
  for (const SolverKind kind : solver_kinds()) {
    const SimulationOptions o = test::small_options(kind, 4, 6);
    Simulation a(s.m.X, s.m.T, s.rig.J, s.rig.p0, o);
    const VectorXd p0 = s.rig.p0;
    for (int i = 1; i <= 5; ++i) a.advance(metronome_pose(p0, 3, i, 0.3));
    Simulation b = a;  // same state, its own workspace and caches
    for (int i = 6; i <= 10; ++i) a.advance(metronome_pose(p0, 3, i, 0.3));
    EXPECT_EQ(b.step_count(), 5);
    for (int i = 6; i <= 10; ++i) b.advance(metronome_pose(p0, 3, i, 0.3));
    EXPECT_EQ(a.positions(), b.positions()) << to_string(kind);
    EXPECT_EQ(a.stats().max_travel, b.stats().max_travel) << to_string(kind);
    b.reset();
    EXPECT_EQ(b.step_count(), 0);
    EXPECT_EQ(b.positions(), Simulation(s.m.X, s.m.T, s.rig.J, s.rig.p0, o).positions()) << to_string(kind);
  }
}

TEST(CDSolver, PositionsIntoABufferEqualTheReturnedOnes) {
  const test::Small3D s;
  for (const SolverKind kind : solver_kinds()) {
    const SimulationOptions o = test::small_options(kind, 4, 6);
    Simulation sim(s.m.X, s.m.T, s.rig.J, s.rig.p0, o);
    MatrixXd x(s.m.X.rows(), 3), xr(s.m.X.rows(), 3);
    for (int i = 1; i <= 4; ++i) {
      sim.advance(metronome_pose(s.rig.p0, 3, i, 0.3));
      sim.positions(x);
      sim.rig_positions(xr);
      EXPECT_EQ(x, sim.positions()) << to_string(kind);
      EXPECT_EQ(xr, sim.rig_positions()) << to_string(kind);
      const MatrixXd Jp = unflatten(s.rig.positions(sim.state().p), 3);
      EXPECT_LE((xr - Jp).cwiseAbs().maxCoeff(), 1e-15 * Jp.cwiseAbs().maxCoeff()) << to_string(kind);
    }
    MatrixXd wrong(3, 3);
    const std::string n = std::to_string(s.m.X.rows());
    test::expect_throw_with<std::invalid_argument>([&] { sim.positions(wrong); },
                                                   "Simulation::positions: the buffer x is 3 x 3, the mesh has " + n +
                                                       " vertices in 3D (x must be " + n + " x 3)");
    MatrixXd transposed(3, s.m.X.rows());
    test::expect_throw_with<std::invalid_argument>([&] { sim.rig_positions(transposed); },
                                                   "Simulation::rig_positions: the buffer x is 3 x " + n);
    // A block of a larger matrix (a caller's frame buffer) is a buffer too.
    MatrixXd frames(2 * s.m.X.rows(), 3);
    sim.positions(frames.bottomRows(s.m.X.rows()));
    EXPECT_EQ(MatrixXd(frames.bottomRows(s.m.X.rows())), sim.positions()) << to_string(kind);
  }
}

TEST(CDSolver, FullOrderMeasuresAreTheFullVectors) {
  const test::Small3D s;
  SimulationOptions o;
  o.solver = SolverKind::Full;
  o.cd.ym = 2e4;
  Simulation sim(s.m.X, s.m.T, s.rig.J, s.rig.p0, o);
  const VectorXd m = s.Mv.diagonal();
  for (int i = 1; i <= 10; ++i) {
    sim.advance(metronome_pose(s.rig.p0, 3, i, 0.3));
    // The rig's energy from its velocity: here a motion that has just moved from p_prev to p.
    RigMotion motion(sim.rig_ptr(), o.cd.dt);
    motion.reset(s.rig.p0);
    motion.move_to(sim.state().p);
    const StepMeasures sm = sim.cd_solver().measure(sim.state(), motion);
    EXPECT_TRUE(sm.max_displacement_exact);
    EXPECT_EQ(sm.max_displacement, sim.state().s.cwiseAbs().maxCoeff());
    EXPECT_EQ(sm.kinetic_energy, 0.5 * sim.state().s_dot.cwiseAbs2().dot(m));
    EXPECT_EQ(sm.rig_kinetic_energy, 0.5 * motion.x_dot().cwiseAbs2().dot(m));
    EXPECT_EQ(sm.kinetic_energy, sim.last_step().kinetic_energy);
    EXPECT_EQ(sim.kinetic_energy(), sim.last_step().kinetic_energy);
    EXPECT_EQ(sim.residual(), sim.last_step().residual);
  }
}

}  // namespace test_cd_solver
}  // namespace fastcd
