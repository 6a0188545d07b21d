// Ensembles (many characters, stepped in parallel) and the skinning-form lift they use.
#include "fastcd/cd/ensemble.hpp"

#include "cd_fixtures.hpp"

namespace fastcd {
namespace test_ensemble {

Simulation fast_sim(const test::Small3D& t, int modes = 6, int clusters = 12) {
  SimulationOptions o;
  o.solver = SolverKind::Fast;
  o.cd.modes = modes;
  o.cd.clusters = clusters;
  return Simulation(t.m.X, t.m.T, std::make_shared<const LinearRig>(t.rig), o);
}

VectorXd pose(const Simulation& s, int f, double amp) {
  return metronome_pose(s.rig().rest_params(), s.dim(), f, amp, 40.0);
}

TEST(FastCD, SkinningFormLiftMatchesTheDenseLiftToSinglePrecision) {
  for (int dim : {2, 3}) {
    const Mesh m = dim == 2 ? test::mesh2d() : test::mesh3d();
    const SparseMatrix Mv = kron_identity(massmatrix(m.X, m.T, 1e3), dim);
    const LinearRig rig = affine_handle_rig(m.X, Mv);
    CDOptions o;
    o.modes = 5;
    o.clusters = 6;
    const FastCD f = fast_cd_precompute(m.X, m.T, rig.J, rig.p0, o);
    const VectorXd z = VectorXd::Random(f.state_dim());
    const VectorXd u = f.lift(z);
    Eigen::VectorXf us(u.size());
    f.lift_skinned(z, us);
    EXPECT_LE((us.cast<double>() - u).cwiseAbs().maxCoeff(), 1e-5 * u.cwiseAbs().maxCoeff()) << dim << "D";
    // The transforms are the skinning form itself: u_v = sum_k W(v,k) (A_k X_v + t_k).
    MatrixXd T(o.modes, dim * (dim + 1));
    f.mode_transforms(z, T);
    for (Index v = 0; v < m.X.rows(); v += 7) {
      VectorXd uv = VectorXd::Zero(dim);
      for (Index k = 0; k < o.modes; ++k) {
        const Eigen::RowVectorXd row = T.row(k);  // column-major [A_k | t_k]
        const Eigen::Map<const MatrixXd> Ak(row.data(), dim, dim + 1);
        uv += f.W()(v, k) * (Ak.leftCols(dim) * m.X.row(v).transpose() + Ak.col(dim));
      }
      EXPECT_LE((uv - u.segment(v * dim, dim)).norm(), 1e-9 * std::max(1.0, u.norm())) << "vertex " << v;
    }
    // Any thread count gives the same floats.
    Eigen::VectorXf u2(u.size());
    f.lift_skinned(z, u2, 3);
    EXPECT_TRUE(us == u2);
    Eigen::VectorXf wrong(3);
    test::expect_throw_with<std::invalid_argument>([&] { f.lift_skinned(z, wrong); }, "u has 3 entries");
    test::expect_throw_with<std::invalid_argument>([&] { f.lift_skinned(VectorXd::Zero(2), us); }, "z has 2 entries");
  }
}

TEST(Ensemble, InstancesShareThePrecomputeAndStepLikeLoneSimulations) {
  const test::Small3D t;
  Ensemble aq;
  EXPECT_EQ(aq.add("box", fast_sim(t)), 0);
  aq.add_instance("box #2", 0);
  aq.add("box full", [&] {
    SimulationOptions o;
    o.cd.iterations = 4;
    return Simulation(t.m.X, t.m.T, std::make_shared<const LinearRig>(t.rig), o);
  }());
  ASSERT_EQ(aq.size(), 3);
  EXPECT_EQ(aq.num_vertices(), 3 * t.m.X.rows());
  EXPECT_EQ(&aq[0].fast()->W(), &aq[1].fast()->W());  // shared, not copied
  // Lone references: the same simulations stepped one by one.
  Simulation lone0 = fast_sim(t), lone1 = fast_sim(t);
  SimulationOptions of;
  of.cd.iterations = 4;
  Simulation lone2(t.m.X, t.m.T, std::make_shared<const LinearRig>(t.rig), of);
  for (int f = 0; f < 15; ++f) {
    const std::vector<VectorXd> p = {pose(aq[0], f, 0.3), pose(aq[1], f + 9, 0.2), pose(aq[2], f, 0.25)};
    aq.advance(p, 2);
    lone0.advance(p[0]);
    lone1.advance(p[1]);
    lone2.advance(p[2]);
  }
  EXPECT_TRUE(aq[0].positions() == lone0.positions());
  EXPECT_TRUE(aq[1].positions() == lone1.positions());
  EXPECT_TRUE(aq[2].positions() == lone2.positions());
  EXPECT_FALSE(aq[0].positions() == aq[1].positions());  // their own animations
  EXPECT_GT(aq[0].displacement().norm(), 1e-6);          // and real secondary motion
  std::vector<Eigen::VectorXf> u;
  aq.lift_skinned(u, 2);
  ASSERT_EQ(u.size(), 3u);
  EXPECT_EQ(u[2].size(), 0);  // full order: nothing to lift
  const VectorXd u1 = aq[1].fast()->lift(aq[1].state().s);
  EXPECT_LE((u[1].cast<double>() - u1).cwiseAbs().maxCoeff(), 1e-5 * u1.cwiseAbs().maxCoeff());
}

TEST(Ensemble, NamesTheCharacterThatFailed) {
  const test::Small3D t;
  Ensemble aq;
  aq.add("calm", fast_sim(t));
  aq.add("bad pose", fast_sim(t));
  std::vector<VectorXd> p = {aq[0].rig().rest_params(), VectorXd::Zero(3)};
  test::expect_throw_with<std::invalid_argument>([&] { aq.advance(p); }, "character 1 (bad pose): ");
  test::expect_throw_with<std::invalid_argument>([&] { aq.advance({p[0]}); }, "1 poses for 2 characters");
  test::expect_throw_with<std::invalid_argument>([&] { aq.add_instance("x", 5); }, "character 5 does not exist");
}

}  // namespace test_ensemble
}  // namespace fastcd
