// Long roll-outs stay finite with bounded energy; divergence is caught within the step it
// happens, with the step number and what to change.
#include "fastcd/scene/scene_simulation.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_long_run {

const std::string kData = std::string(FASTCD_SHARED_DIR) + "/data/complementary-dynamics-2d/";

/// The animation played back and forth (ping-pong), frame f of a 10,000-step run.
const VectorXd& pingpong(const Scene& s, long f) {
  const long n = static_cast<long>(s.poses.size()), period = 2 * (n - 1), k = f % period;
  return s.poses[static_cast<std::size_t>(k < n ? k : period - k)];
}

struct LongRun {
  double first_cycle_max = 0.0, last_cycle_max = 0.0, max_residual = 0.0;
};

/// The scene as `fastcd run` simulates it (its own dt, YM, pr and rho), played back and forth
/// for `steps` steps; the simulation's monitor throws on divergence.
LongRun roll_out(const Scene& s, SolverKind solver, long steps) {
  SceneRunSettings run;
  run.solver = solver;
  Simulation sim = make_simulation(s, scene_simulation_options(s, run));
  const long cycle = 2 * (static_cast<long>(s.poses.size()) - 1);
  LongRun r;
  for (long f = 0; f < steps; ++f) {
    sim.advance(pingpong(s, f));
    const double kinetic = sim.last_step().kinetic_energy;
    if (f < cycle) r.first_cycle_max = std::max(r.first_cycle_max, kinetic);
    if (f >= steps - cycle) r.last_cycle_max = std::max(r.last_cycle_max, kinetic);
  }
  r.max_residual = sim.stats().max_residual;
  return r;
}

TEST(LongRun, FastDaisyTenThousandSteps) {
  const Scene s = load_scene(kData + "daisy/daisy_data/daisy.json");
  const LongRun r = roll_out(s, SolverKind::Fast, 10000);
  // Bounded: the last cycle of the ping-pong carries no more energy than the first (backward
  // Euler only dissipates what the rig puts in).
  EXPECT_GT(r.first_cycle_max, 0.0);
  EXPECT_LE(r.last_cycle_max, 2.0 * r.first_cycle_max);
  EXPECT_LT(r.max_residual, 1e-10);
  RecordProperty("kinetic_first_cycle_max", test::sci(r.first_cycle_max));
  RecordProperty("kinetic_last_cycle_max", test::sci(r.last_cycle_max));
}

// (Not the bird: its rig does not hold the body — the release pins it with a fixed region
// fastcd does not read — so momentum from the beak carries it away, correctly but unboundedly.)
TEST(LongRun, FullWalrusTenThousandSteps) {
  const Scene s = load_scene(kData + "walrus/walrus_data/walrus.json");
  const LongRun r = roll_out(s, SolverKind::Full, 10000);
  EXPECT_GT(r.first_cycle_max, 0.0);
  EXPECT_LE(r.last_cycle_max, 2.0 * r.first_cycle_max);
  EXPECT_LT(r.max_residual, 1e-10);
  RecordProperty("kinetic_first_cycle_max", test::sci(r.first_cycle_max));
  RecordProperty("kinetic_last_cycle_max", test::sci(r.last_cycle_max));
}

TEST(Divergence, NanAndExplodingEnergyAreCaughtWithTheStepAndAdvice) {
  const Mesh b = beam(10, 3);
  const SparseMatrix Mv = kron_identity(massmatrix(b.X, b.T, 1e3), 2);
  const Index n = Mv.rows();
  DivergenceMonitor m(Mv, 2.0, 0.01, 1e5);
  const VectorXd rig_v = VectorXd::Constant(n, 1.0), small = VectorXd::Constant(n, 0.01);
  m.check(1, rig_v, small, small);  // fine
  VectorXd bad = small;
  bad(7) = std::nan("");
  test::expect_throw_with<std::runtime_error>([&] { m.check(2, rig_v, bad, small); },
                                              "diverged at step 2: the complementary displacement is NaN");
  test::expect_throw_with<std::runtime_error>([&] { m.check(3, rig_v, small, VectorXd::Constant(n, 1e3)); },
                                              "diverged at step 3: the complementary kinetic energy");
  test::expect_throw_with<std::runtime_error>([&] { m.check(4, rig_v, VectorXd::Constant(n, 50.0), small); },
                                              "a vertex moved 25 times the mesh's size away from the rig");
  test::expect_throw_with<std::runtime_error>(
      [&] { m.check(5, rig_v, bad, small); },
      "use a smaller time step (dt = 0.01 now) or a stiffer material (YM = 1e+05 now)");
}

}  // namespace test_long_run
}  // namespace fastcd
