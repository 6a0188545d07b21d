// The rig interface: every rig's Jacobian against finite differences, rest reproduction, and
// full order keeping J(p)^T M D u_c = 0 every frame for linear and nonlinear rigs.
#include <cmath>
#include <functional>
#include <memory>
#include <numbers>

#include "fastcd/io/mesh_io.hpp"
#include "fastcd/io/rig_io.hpp"
#include "fastcd/scene/scene.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_rigs {

const std::string kData = std::string(FASTCD_SHARED_DIR) + "/data/complementary-dynamics-2d/";

double jacobian_error(const Rig& rig, const VectorXd& p) {
  const MatrixXd Ja = MatrixXd(rig.jacobian(p)), Jf = MatrixXd(finite_difference_jacobian(rig, p));
  return (Ja - Jf).norm() / std::max(1e-300, Jf.norm());
}

/// A user-defined nonlinear rig written only through `positions` (Jacobian by the default finite
/// differences): the beam bends about its left end by angle p(0) and stretches by p(1).
class BendRig : public Rig {
 public:
  explicit BendRig(MatrixXd X) : X_(std::move(X)) {}
  Index dim() const override { return 2; }
  Index num_vertices() const override { return X_.rows(); }
  Index num_params() const override { return 2; }
  bool is_linear() const override { return false; }
  VectorXd rest_params() const override { return VectorXd::Zero(2); }
  void positions(const Eigen::Ref<const VectorXd>& p, Eigen::Ref<VectorXd> x) const override {
    const double x0 = X_.col(0).minCoeff(), len = X_.col(0).maxCoeff() - x0;
    for (Index v = 0; v < X_.rows(); ++v) {
      const double s = (X_(v, 0) - x0) / len, a = p(0) * s * s;  // angle grows along the beam
      const double xs = X_(v, 0) * (1.0 + p(1) * s), y = X_(v, 1);
      x(2 * v) = std::cos(a) * xs - std::sin(a) * y;
      x(2 * v + 1) = std::sin(a) * xs + std::cos(a) * y;
    }
  }
  std::string name() const override { return "bend"; }
  using Rig::positions;

 private:
  MatrixXd X_;
};

// Both precomputes refuse bad rig inputs through one check (check_rig_inputs), each message
// starting with the precompute's own name.
TEST(Rigs, BothPrecomputesRefuseBadRigInputsAlike) {
  const Mesh b = beam(12, 3);
  const LinearRig rig = affine_handle_rig(b.X, kron_identity(massmatrix(b.X, b.T, 1e3), 2));
  const std::string dofs = std::to_string(b.X.size());
  const SparseMatrix short_J = rig.J.topRows(rig.J.rows() - 2);
  SparseMatrix nan_J = rig.J;
  nan_J.coeffRef(4, 1) = std::nan("");
  VectorXd inf_p0 = rig.p0;
  inf_p0(3) = INFINITY;
  CDOptions o;
  o.modes = 2;
  o.clusters = 4;
  using Precompute = std::function<void(const SparseMatrix&, const VectorXd&)>;
  const std::vector<std::pair<std::string, Precompute>> precomputes = {
      {"full_cd_precompute",
       [&](const SparseMatrix& J, const VectorXd& p0) { full_cd_precompute(b.X, b.T, J, p0, o); }},
      {"fast_cd_precompute",
       [&](const SparseMatrix& J, const VectorXd& p0) { fast_cd_precompute(b.X, b.T, J, p0, o); }}};
  for (const auto& [name, precompute] : precomputes) {
    SCOPED_TRACE(name);
    test::expect_throw_with<std::invalid_argument>(
        [&] { precompute(short_J, rig.p0); },
        name + ": rig Jacobian J has " + std::to_string(short_J.rows()) + " rows, the mesh has " + dofs + " DOFs");
    test::expect_throw_with<std::invalid_argument>([&] { precompute(rig.J, rig.p0.head(5)); },
                                                   name + ": rest pose p0 has 5 entries, J has 6 columns");
    test::expect_throw_with<std::invalid_argument>([&] { precompute(nan_J, rig.p0); },
                                                   name + ": rig Jacobian J(4, 1) is nan");
    test::expect_throw_with<std::invalid_argument>([&] { precompute(rig.J, inf_p0); },
                                                   name + ": rest pose p0 has NaN or Inf entries");
  }
  check_rig_inputs(b.X, rig.J, rig.p0, "anyone");  // (good inputs pass)
}

TEST(Rigs, LinearRigsJacobiansAndRest) {
  const Mesh b = beam(20, 4);
  const SparseMatrix Mv = kron_identity(massmatrix(b.X, b.T, 1e3), 2);
  const LinearRig lbs = affine_handle_rig(b.X, Mv);
  EXPECT_TRUE(lbs.is_linear());
  const VectorXd p = lbs.p0 + 0.1 * VectorXd::Random(lbs.num_params());
  EXPECT_LT(jacobian_error(lbs, p), 1e-8);
  EXPECT_LT((lbs.positions(lbs.p0) - test::flat(b.X)).norm(), 1e-10 * b.X.norm());
  test::expect_throw_with<std::invalid_argument>([&] { lbs.positions(VectorXd::Zero(5)); }, "expected 6");
}

TEST(Rigs, WalrusCageRigBothCoordinates) {
  const MatrixXd X = read_obj_2d(kData + "walrus/walrus_data/walrus.obj").X;
  const TgfGraph g = read_tgf(kData + "walrus/walrus_data/walrus_cage.tgf");
  const MatrixXd C = g.C.leftCols(2);
  for (CageCoordinates kind : {CageCoordinates::MeanValue, CageCoordinates::Harmonic}) {
    const LinearRig rig = cage_rig(X, C, g.E, kind, 64);
    EXPECT_EQ(rig.num_params(), 18);
    // The rest cage reproduces the rest shape exactly (harmonic: after the row correction).
    EXPECT_LT((rig.positions(rig.p0) - test::flat(X)).cwiseAbs().maxCoeff(), 1e-9 * X.cwiseAbs().maxCoeff());
    const VectorXd p = rig.p0 + 10.0 * VectorXd::Random(18);
    EXPECT_LT(jacobian_error(rig, p), 1e-8);
    // Rows are a partition of unity: translating the cage translates the mesh.
    VectorXd t = rig.p0;
    for (Index c = 0; c < 9; ++c) t.segment<2>(2 * c) += Eigen::Vector2d(3.0, -2.0);
    const VectorXd moved = rig.positions(t) - rig.positions(rig.p0);
    for (Index v = 0; v < X.rows(); ++v) EXPECT_LT((moved.segment<2>(2 * v) - Eigen::Vector2d(3.0, -2.0)).norm(), 1e-9);
  }
}

TEST(Rigs, WireRigAnalyticJacobianMatchesFiniteDifferences) {
  const Scene s = [] {
    SceneOptions o;
    o.rig = "wire";
    return load_scene(kData + "daisy/daisy_data/daisy.json", o);
  }();
  const Rig& rig = *s.rig;
  EXPECT_FALSE(rig.is_linear());
  EXPECT_EQ(rig.name(), "wire");
  EXPECT_LT((rig.positions(s.rest_pose) - test::flat(s.X)).cwiseAbs().maxCoeff(), 1e-12);
  for (int f : {0, 60, 120, 199}) EXPECT_LT(jacobian_error(rig, s.poses[static_cast<std::size_t>(f)]), 1e-6) << f;
}

/// Full order under `rig` over `poses`: the residual ||J(p)^T M D u_c|| / (||C|| ||u_c||) of each
/// frame's constraint; returns the largest.
double full_order_max_residual(const Mesh& m, std::shared_ptr<const Rig> rig, const std::vector<VectorXd>& poses,
                               CDOptions o) {
  SimulationOptions so;
  so.cd = o;
  Simulation sim(m.X, m.T, rig, so);
  const VectorXd& uc = sim.state().s;
  double worst = 0.0;
  for (const VectorXd& p : poses) {
    sim.advance(p);
    EXPECT_TRUE(uc.allFinite());
    // Against J(p) itself, not just the solver's stored constraint.
    const SparseMatrix C = complementarity_constraint(rig->jacobian(p), sim.full()->Mv(), sim.D(), 2).C;
    if (uc.norm() > 0) worst = std::max(worst, (C * uc).norm() / (C.norm() * uc.norm()));
  }
  EXPECT_LE(sim.stats().max_residual, std::max(worst, 1e-14) * 10.0);  // the simulation's own measure agrees
  return worst;
}

/// A linear rig seen only through the Rig interface (not a LinearRig): the simulation steps it
/// in rig positions instead of parameters.
class OpaqueLinearRig : public Rig {
 public:
  explicit OpaqueLinearRig(LinearRig r) : r_(std::move(r)) {}
  Index dim() const override { return r_.dim(); }
  Index num_vertices() const override { return r_.num_vertices(); }
  Index num_params() const override { return r_.num_params(); }
  bool is_linear() const override { return true; }
  VectorXd rest_params() const override { return r_.p0; }
  void positions(const Eigen::Ref<const VectorXd>& p, Eigen::Ref<VectorXd> x) const override { r_.positions(p, x); }
  SparseMatrix jacobian(const Eigen::Ref<const VectorXd>&) const override { return r_.J; }
  using Rig::positions;

 private:
  LinearRig r_;
};

TEST(Rigs, FullOrderKeepsTheWireConstraintEveryFrame) {
  SceneOptions so;
  so.rig = "wire";
  const Scene s = load_scene(kData + "daisy/daisy_data/daisy.json", so);
  CDOptions o;
  o.dt = s.dt;
  o.ym = s.ym;
  o.pr = s.pr;
  const std::vector<VectorXd> poses(s.poses.begin(), s.poses.begin() + 40);
  EXPECT_LT(full_order_max_residual({s.X, s.T}, s.rig, poses, o), 1e-8);
}

TEST(Rigs, UserDefinedNonlinearRigWithFiniteDifferenceJacobian) {
  const Mesh b = beam(20, 4);
  const auto rig = std::make_shared<const BendRig>(b.X);
  std::vector<VectorXd> poses;
  for (int i = 1; i <= 30; ++i) poses.push_back(Eigen::Vector2d(0.3 * std::sin(0.2 * i), 0.05 * std::sin(0.1 * i)));
  CDOptions o;
  o.ym = 1e4;
  const double res = full_order_max_residual(b, rig, poses, o);
  EXPECT_LT(res, 1e-8);
  // The fast solver's subspace is built for one constant J: a simulation refuses nonlinear rigs
  // by name.
  EXPECT_FALSE(rig->is_linear());
  SimulationOptions so;
  so.solver = SolverKind::Fast;
  test::expect_throw_with<std::invalid_argument>([&] { Simulation(b.X, b.T, rig, so); },
                                                 "the fast solver needs a linear rig");
}

TEST(Rigs, AnyRigApiEqualsTheParameterApiForLinearRigs) {
  const Mesh b = beam(20, 4);
  const SparseMatrix Mv = kron_identity(massmatrix(b.X, b.T, 1e3), 2);
  const LinearRig rig = affine_handle_rig(b.X, Mv);
  Simulation a(b.X, b.T, rig.J, rig.p0);                                 // steps in parameters
  Simulation r(b.X, b.T, std::make_shared<const OpaqueLinearRig>(rig));  // steps in rig positions
  for (int i = 0; i < 15; ++i) {
    const VectorXd p = metronome_pose(rig.p0, 2, i, 0.5);
    a.advance(p);
    r.advance(p);
  }
  EXPECT_LT((a.state().s - r.state().s).norm(), 1e-12 * a.state().s.norm());
  EXPECT_LT((a.positions() - r.positions()).norm(), 1e-12 * a.positions().norm());
}

TEST(Rigs, SceneRigOptionsAreChecked) {
  SceneOptions o;
  o.rig = "wire";
  test::expect_throw_with<std::runtime_error>([&] { load_scene(kData + "bird/bird_mouth_data/bird_mouth.json", o); },
                                              "wire rig needs a 2D scene with point handles");
  o.rig = "mvc";
  test::expect_throw_with<std::runtime_error>([&] { load_scene(kData + "daisy/daisy_data/daisy.json", o); },
                                              "needs a cage scene");
  o.rig = "lbs";
  test::expect_throw_with<std::runtime_error>([&] { load_scene(kData + "walrus/walrus_data/walrus.json", o); },
                                              "does not apply to a cage scene");
  const Scene w = load_scene(kData + "walrus/walrus_data/walrus.json");
  EXPECT_EQ(w.kind, HandleKind::Cage);
  EXPECT_EQ(w.poses.size(), 222u);
  EXPECT_EQ(w.rest_pose.size(), 18);
  // The first animation frame is the rest cage (the release starts at rest).
  EXPECT_LT((w.poses[0] - w.rest_pose).cwiseAbs().maxCoeff(), 1e-6);
}

}  // namespace test_rigs
}  // namespace fastcd
