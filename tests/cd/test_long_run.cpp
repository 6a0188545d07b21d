// Long roll-outs stay finite with bounded energy; divergence is caught within the step it
// happens, with the step number and what to change.
#include "fastcd/io/scene.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace {

const std::string kData = std::string(FASTCD_SHARED_DIR) + "/data/complementary-dynamics-2d/";

CDOptions scene_options(const io::Scene& s) {
  CDOptions o;
  o.h = s.dt;
  o.ym = s.ym;
  o.pr = s.pr;
  return o;
}

/// The animation played back and forth (ping-pong), frame f of a 10,000-step run.
const VectorXd& pingpong(const io::Scene& s, long f) {
  const long n = static_cast<long>(s.poses.size()), period = 2 * (n - 1), k = f % period;
  return s.poses[static_cast<std::size_t>(k < n ? k : period - k)];
}

struct LongRun {
  double first_cycle_max = 0.0, last_cycle_max = 0.0, max_residual = 0.0;
};

template <class Advance, class Lift>
LongRun roll_out(const io::Scene& s, const SparseMatrix& C, long steps, CDState& state, Advance advance, Lift lift) {
  const SparseMatrix Mv = kron_identity(massmatrix(s.X, s.T, s.rho), s.dim);
  DivergenceMonitor monitor(Mv, 2.0, s.dt, s.ym);
  const long cycle = 2 * (static_cast<long>(s.poses.size()) - 1);
  const double Cn = C.norm();
  LongRun r;
  VectorXd rig_prev = s.rig->positions(s.rest_pose);
  for (long f = 0; f < steps; ++f) {
    const VectorXd& p = pingpong(s, f);
    advance(state, p);
    const VectorXd uc = lift(state.s), ucd = lift(state.s_dot), rig = s.rig->positions(p);
    monitor.check(f + 1, (rig - rig_prev) / s.dt, uc, ucd);  // throws on divergence
    rig_prev = rig;
    if (f < cycle) r.first_cycle_max = std::max(r.first_cycle_max, monitor.last_kinetic());
    if (f >= steps - cycle) r.last_cycle_max = std::max(r.last_cycle_max, monitor.last_kinetic());
    if (uc.norm() > 0) r.max_residual = std::max(r.max_residual, (C * uc).norm() / (Cn * uc.norm()));
  }
  return r;
}

TEST(LongRun, FastDaisyTenThousandSteps) {
  const io::Scene s = io::load_scene(kData + "daisy/daisy_data/daisy.json");
  const auto& rig = dynamic_cast<const LinearRig&>(*s.rig);
  const FastCD sys = fast_cd_precompute(s.X, s.T, rig.J, rig.p0, scene_options(s));
  CDState state = fast_cd_initial_state(sys);
  FastCDWorkspace ws;
  const LongRun r = roll_out(
      s, sys.constraint.C, 10000, state, [&](CDState& st, const VectorXd& p) { fast_cd_advance(sys, st, p, ws); },
      [&](const VectorXd& z) { return fast_cd_lift(sys, z); });
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
  const io::Scene s = io::load_scene(kData + "walrus/walrus_data/walrus.json");
  FullCD sys = full_cd_precompute(s.X, s.T, *s.rig, scene_options(s));
  CDState state = full_cd_initial_state(sys, *s.rig);
  FullCDWorkspace ws;
  const LongRun r = roll_out(
      s, sys.constraint.C, 10000, state, [&](CDState& st, const VectorXd& p) { full_cd_advance(sys, *s.rig, st, p, ws); },
      [](const VectorXd& u) { return u; });
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
                                              "a vertex moved 50 away from the rig");
  test::expect_throw_with<std::runtime_error>([&] { m.check(5, rig_v, bad, small); },
                                              "use a smaller time step (h = 0.01 now) or a stiffer material (YM = 100000 now)");
}

}  // namespace
}  // namespace fastcd
