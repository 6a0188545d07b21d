// The fast solver's adapter (issue 34, item 3): its lift equals FastCD::lift (Phi Z^T) to 1e-12
// of the mesh's size, its basis is M-orthonormal to rounding, and the monitor it measures in
// reduced coordinates equals what the full vectors give: the residual, both kinetic energies,
// a bound of max |u_c| that holds, and a Simulation's statistics and divergence messages.
#include <regex>

#include "cd_fixtures.hpp"

namespace fastcd {
namespace test_fast_cd_solver {

struct FastCase {
  std::string name;
  Mesh m;
  std::shared_ptr<const LinearRig> rig;
  int modes, clusters;
  LeakFieldKind leak = LeakFieldKind::Diffusion;
};

/// The beam (2D), a box grid with one affine handle, the same box with two LBS bones (a rig
/// whose J is J_s (x) I with 2 handles), and a tiny grid whose modes outnumber the
/// rig-orthogonal space (dependent skinning columns: Craw from a rank-revealing solve; no
/// interior vertices, so no leak field).
std::vector<FastCase> cases() {
  std::vector<FastCase> out;
  {
    Mesh b = beam(40, 5);
    auto rig = std::make_shared<const LinearRig>(affine_handle_rig(b.X, kron_identity(massmatrix(b.X, b.T, 1e3), 2)));
    out.push_back({"beam", b, rig, 10, 20});
  }
  {
    const test::Small3D s(8, 4, 4);
    out.push_back({"box", s.m, std::make_shared<const LinearRig>(s.rig), 6, 12});
    MatrixXd W(s.m.X.rows(), 2);
    W.col(1) = (s.m.X.col(0).array() / s.m.X.col(0).maxCoeff()).matrix();
    W.col(0) = 1.0 - W.col(1).array();
    out.push_back({"box-2-bones", s.m, std::make_shared<const LinearRig>(lbs_rig(s.m.X, W, s.Mv)), 6, 12});
  }
  {
    const Mesh m = tetrahedralized_grid(3, 2, 2);
    const SparseMatrix Mv = kron_identity(massmatrix(m.X, m.T, 1e3), 3);
    out.push_back(
        {"tiny", m, std::make_shared<const LinearRig>(affine_handle_rig(m.X, Mv)), 4, 4, LeakFieldKind::None});
  }
  return out;
}

SimulationOptions fast_options(const FastCase& c) {
  SimulationOptions o;
  o.solver = SolverKind::Fast;
  o.cd.modes = c.modes;
  o.cd.clusters = c.clusters;
  o.cd.ym = 2e4;  // soft: visible secondary motion
  o.cd.leak.kind = c.leak;
  return o;
}

double extent_of(const MatrixXd& X) { return (X.colwise().maxCoeff() - X.colwise().minCoeff()).maxCoeff(); }

/// A pose of the metronome, swinging the last handle by `amp` of the mesh's size.
VectorXd swing(const Simulation& sim, int i, double amp) {
  return metronome_pose(sim.rig().rest_params(), sim.dim(), i, amp, 40.0);
}

TEST(FastCDSolver, LiftEqualsPhiLiftToRoundingOfTheMeshSize) {
  int skinning = 0;
  for (const FastCase& c : cases()) {
    const Simulation sim(c.m.X, c.m.T, c.rig, fast_options(c));
    const auto& adapter = dynamic_cast<const FastCDSolver&>(sim.cd_solver());
    const FastCD& fast = *sim.fast();
    skinning += adapter.skinning_lift() ? 1 : 0;
    const double extent = extent_of(c.m.X);
    std::mt19937 rng(3);
    std::normal_distribution<double> g;
    for (int trial = 0; trial < 5; ++trial) {
      VectorXd z(fast.state_dim());
      for (Index k = 0; k < z.size(); ++k) z(k) = g(rng);
      // Scaled so that u_c reaches the mesh's size (trial 0) up to 10x it (the divergence limit).
      VectorXd u_ref = fast.lift(z);
      z *= (1.0 + 2.0 * trial) * extent / u_ref.cwiseAbs().maxCoeff();
      u_ref = fast.lift(z);
      VectorXd scratch;
      const VectorXd& u = sim.cd_solver().lift(z, scratch);
      EXPECT_LE((u - u_ref).cwiseAbs().maxCoeff(), 1e-12 * extent)
          << c.name << ": skinning form " << adapter.skinning_lift() << ", trial " << trial;
    }
    RecordProperty(c.name + "_skinning_lift", adapter.skinning_lift() ? "yes" : "no");
    RecordProperty(c.name + "_representation_error", test::sci(adapter.skinning_representation_error()));
  }
  // The skinning form is what runs on ordinary meshes (the test above is then about it).
  EXPECT_GE(skinning, 3);
}

TEST(FastCDSolver, TheBasisIsMassOrthonormalToRounding) {
  for (const FastCase& c : cases()) {
    const Simulation sim(c.m.X, c.m.T, c.rig, fast_options(c));
    const auto& adapter = dynamic_cast<const FastCDSolver&>(sim.cd_solver());
    const MatrixXd& B = sim.fast()->B();
    const MatrixXd BMB = B.transpose() * (sim.fast()->Mv() * B);
    const double err = (BMB - MatrixXd::Identity(BMB.rows(), BMB.cols())).cwiseAbs().maxCoeff();
    EXPECT_LE(err, 1e-13) << c.name;
    EXPECT_NEAR(adapter.mass_orthonormality_error(), err, 1e-14) << c.name;
    RecordProperty(c.name + "_BtMB_minus_I", test::sci(err));
  }
}

/// The old monitor, from full vectors: u_c = Phi Z^T, x_rig = J p, all #V*dim.
struct FullVectorMonitor {
  const Simulation& sim;
  double floor, extent;
  VectorXi boundary;
  VectorXd x_rest, x_prev;
  double max_travel = 0, max_rig_travel = 0, max_displacement = 0, max_residual = 0, max_kinetic = 0;
  FullVectorMonitor(const Simulation& s, const Mesh& m)
      : sim(s), floor(1e-8 * m.X.norm()), extent(extent_of(m.X)), boundary(boundary_vertices(m.T)) {
    x_rest = sim.rig().positions(sim.rig().rest_params());
    x_prev = x_rest;
  }
  /// After a step: what the old Simulation::advance computed.
  void step(double& residual, double& kinetic, double& rig_kinetic, double& umax) {
    const FastCD& f = *sim.fast();
    const VectorXd u = f.lift(sim.state().s), ud = f.lift(sim.state().s_dot);
    const VectorXd xr = sim.rig().positions(sim.state().p);
    const VectorXd xr_dot = (xr - x_prev) / sim.options().cd.dt;
    x_prev = xr;
    const VectorXd m = f.Mv().diagonal();
    kinetic = 0.5 * ud.cwiseAbs2().dot(m);
    rig_kinetic = 0.5 * xr_dot.cwiseAbs2().dot(m);
    const double un = std::max(u.norm(), floor);
    residual = (f.constraint().C * u).norm() / (f.constraint().C.norm() * un);
    umax = u.cwiseAbs().maxCoeff();
    const Index d = sim.dim();
    for (Index k = 0; k < boundary.size(); ++k)
      for (Index a = 0; a < d; ++a) {
        const Index i = boundary[k] * d + a;
        max_rig_travel = std::max(max_rig_travel, std::abs(xr[i] - x_rest[i]));
        max_travel = std::max(max_travel, std::abs(xr[i] + u[i] - x_rest[i]));
      }
    max_displacement = std::max(max_displacement, umax);
    max_residual = std::max(max_residual, residual);
    max_kinetic = std::max(max_kinetic, kinetic);
  }
};

double relative(double a, double b) { return std::abs(a - b) / std::max({std::abs(a), std::abs(b), 1e-300}); }

TEST(FastCDSolver, ReducedMonitorEqualsTheFullVectorOne) {
  for (const FastCase& c : cases()) {
    // The tiny grid under one affine handle moves (to rounding) only as the rig does: nothing
    // secondary to compare the two monitors on. The other cases have it.
    if (c.name == "tiny") continue;
    for (const bool read_positions : {true, false}) {
      Simulation sim(c.m.X, c.m.T, c.rig, fast_options(c));
      FullVectorMonitor ref(sim, c.m);
      double worst_residual = 0;
      for (int i = 1; i <= 60; ++i) {
        sim.advance(swing(sim, i, 0.3 * ref.extent));
        double residual, kinetic, rig_kinetic, umax;
        ref.step(residual, kinetic, rig_kinetic, umax);
        const StepMeasures m = sim.cd_solver().measure(sim.state(), RigMotion());
        EXPECT_LE(relative(sim.last_step().kinetic_energy, kinetic), 1e-12) << c.name << " step " << i;
        EXPECT_LE(relative(m.kinetic_energy, kinetic), 1e-12) << c.name << " step " << i;
        EXPECT_LE(relative(m.rig_kinetic_energy, rig_kinetic), 1e-9) << c.name << " step " << i;
        // Both residuals are rounding (C B = 0 up to the structural residual): equal to 1e-12.
        EXPECT_LE(std::abs(sim.last_step().residual - residual), 1e-12) << c.name << " step " << i;
        worst_residual = std::max(worst_residual, sim.last_step().residual);
        // The bound holds (and is what the divergence check reads).
        EXPECT_FALSE(m.max_displacement_exact);
        EXPECT_GE(m.max_displacement, umax * (1 - 1e-12)) << c.name << " step " << i;
        if (read_positions) {
          const MatrixXd x = sim.positions();
          const MatrixXd x_ref = sim.fast()->positions(sim.state());
          EXPECT_LE((x - x_ref).cwiseAbs().maxCoeff(), 1e-12 * ref.extent) << c.name << " step " << i;
        }
      }
      const SimulationStats& st = sim.stats();
      EXPECT_LE(relative(st.max_travel, ref.max_travel), 1e-12) << c.name;
      EXPECT_LE(relative(st.max_rig_travel, ref.max_rig_travel), 1e-12) << c.name;
      EXPECT_LE(relative(st.max_displacement, ref.max_displacement), 1e-12) << c.name;
      EXPECT_LE(relative(st.max_kinetic_energy, ref.max_kinetic), 1e-12) << c.name;
      EXPECT_LE(std::abs(st.max_residual - ref.max_residual), 1e-12) << c.name;
      EXPECT_GT(st.max_displacement, 1e-6 * ref.extent) << c.name << ": no secondary motion to compare";
      RecordProperty(c.name + "_max_residual", test::sci(worst_residual));
    }
  }
}

TEST(FastCDSolver, ADivergenceIsCaughtAtItsStepWithTheLiftedDisplacement) {
  // A limit of 1e-4 of the mesh's size: the bound exceeds it, u_c is lifted and measured.
  const FastCase c = cases()[1];
  SimulationOptions o = fast_options(c);
  o.divergence_extent_ratio = 1e-4;
  Simulation sim(c.m.X, c.m.T, c.rig, o);
  const double extent = extent_of(c.m.X);
  long diverged_at = 0;
  std::string what;
  for (int i = 1; i <= 40 && diverged_at == 0; ++i) {
    try {
      sim.advance(swing(sim, i, 0.3 * extent));
    } catch (const std::runtime_error& e) {
      diverged_at = i;
      what = e.what();
    }
  }
  ASSERT_GT(diverged_at, 0) << "no divergence caught";
  // The first step whose max |u_c| (Phi Z^T) passes the limit.
  const double umax = sim.fast()->lift(sim.state().s).cwiseAbs().maxCoeff();
  EXPECT_GT(umax, 1e-4 * extent);
  EXPECT_NE(what.find("diverged at step " + std::to_string(diverged_at) + ": a vertex moved"), std::string::npos)
      << what;
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.3g", umax / extent);
  EXPECT_NE(what.find(std::string("moved ") + ratio + " times the mesh's size"), std::string::npos) << what;
  // And the energy check, from z_dot: a tiny ratio fires at the first step that moves.
  o.divergence_extent_ratio = 10.0;
  o.divergence_energy_ratio = 1e-30;
  Simulation sim2(c.m.X, c.m.T, c.rig, o);
  test::expect_throw_with<std::runtime_error>([&] { sim2.advance(swing(sim2, 1, 0.3 * extent)); },
                                              "diverged at step 1: the complementary kinetic energy");
}

}  // namespace test_fast_cd_solver
}  // namespace fastcd
