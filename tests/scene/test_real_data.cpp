// Real data never fails quietly (issue 15): the releases' layouts as released, weights that
// are not a partition of unity, boundary-dominated meshes, a static rig's rounding, a very long
// bone chain, and readers that meet FIFOs and devices.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "fastcd/cd/complementarity.hpp"
#include "fastcd/cd/simulation.hpp"
#include "fastcd/cd/skeleton.hpp"
#include "fastcd/geometry/lbs_jacobian.hpp"
#include "fastcd/geometry/massmatrix.hpp"
#include "fastcd/geometry/triangulated_grid.hpp"
#include "fastcd/io/mesh_io.hpp"
#include "fastcd/io/rig_io.hpp"
#include "fastcd/scene/scene.hpp"
#include "fastcd/scene/scene_simulation.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_real_data {

namespace fs = std::filesystem;
const std::string kData = std::string(FASTCD_SHARED_DIR) + "/data/";
const std::string kDaisy = kData + "complementary-dynamics-2d/daisy/daisy_data/";
const std::string kSphere = kData + "complementary-dynamics-cpp/sphere/";

class RealData : public test::TempDir {
 protected:
  std::string json(const std::string& name, const std::string& body) { return put(name, "{" + body + "}"); }
  /// The sphere scene (3D, 2 point handles) with its weight file replaced by W.
  std::string sphere_with_weights(const MatrixXd& W) {
    write_dmat(path("w.dmat"), W);
    return json("s.json", R"("mesh_file": ")" + kSphere + R"(sphere.mesh", "handle_file": ")" + kSphere +
                              R"(sphere.tgf", "weight_file": "w.dmat", "anim_file": ")" + kSphere +
                              R"(sphere_anim.txt", "dt": 0.01, "YM": 5e4, "pr": 0.4)");
  }
};

// ---- the MATLAB release's vertex-handle layout (the hedgehog): constraint_file + affine DMAT

TEST_F(RealData, VertexHandleLayoutMovesItsHandleVerticesByTheirTransforms) {
  const Index h = 3, d = 2;
  write_dmat(path("handles.dmat"), (MatrixXd(h, 1) << 1, 100, 400).finished());  // 1-based vertices
  // Frame f: every handle translated by (0.1 f, -0.05 f); in the last frame handle 0 also
  // rotates by 30 degrees. Columns in gptoolbox's lbs_matrix_column order.
  const Index frames = 4;
  MatrixXd Z = MatrixXd::Zero(frames, h * d * (d + 1));
  std::vector<MatrixXd> T(static_cast<std::size_t>(frames * h));
  for (Index f = 0; f < frames; ++f)
    for (Index i = 0; i < h; ++i) {
      MatrixXd A = MatrixXd::Identity(d, d + 1);
      A(0, d) = 0.1 * f;
      A(1, d) = -0.05 * f;
      if (f == frames - 1 && i == 0) A.leftCols(2) = Eigen::Rotation2Dd(EIGEN_PI / 6).toRotationMatrix();
      for (Index c = 0; c <= d; ++c)
        for (Index x = 0; x < d; ++x) Z(f, c * h * d + x * h + i) = A(x, c);
      T[static_cast<std::size_t>(f * h + i)] = A;
    }
  write_dmat(path("anim.dmat"), Z);
  const std::string base = R"("mesh_file": ")" + kDaisy + R"(daisy.obj", "constraint_file": "handles.dmat",
      "anim_file": "anim.dmat", "dt": 0.01, "YM": 300, "pr": 0.4)";
  const Scene s = load_scene(json("hedgehog.json", base));
  EXPECT_EQ(s.layout, "matlab-2d-vertex-handles");
  ASSERT_EQ(s.handles, h);
  ASSERT_EQ(static_cast<Index>(s.poses.size()), frames);
  EXPECT_DOUBLE_EQ(s.rho, 1.0);  // the MATLAB release's unit density
  const SparseMatrix J = lbs_jacobian(s.X, s.W);
  const VectorXi I = (VectorXi(3) << 0, 99, 399).finished();
  for (Index f = 0; f < frames; ++f) {
    const MatrixXd x = (J * s.poses[static_cast<std::size_t>(f)]).reshaped<Eigen::RowMajor>(s.X.rows(), d);
    for (Index i = 0; i < h; ++i) {  // each handle vertex follows its own transform exactly
      const MatrixXd& A = T[static_cast<std::size_t>(f * h + i)];
      const Eigen::Vector2d want = A.leftCols(2) * s.X.row(I(i)).transpose() + A.col(2);
      EXPECT_LT((x.row(I(i)).transpose() - want).norm(), 1e-12) << "frame " << f << " handle " << i;
    }
    if (f < frames - 1) {  // a common translation moves the whole mesh (a partition of unity)
      const Eigen::RowVector2d t(0.1 * f, -0.05 * f);
      EXPECT_LT((x - (s.X.rowwise() + t)).cwiseAbs().maxCoeff(), 1e-12);
    }
  }
  // frame_num: fewer frames than the animation truncates; more is said in a warning.
  const Scene two = load_scene(json("two.json", base + R"(, "frame_num": 2)"));
  EXPECT_EQ(two.poses.size(), 2u);
  EXPECT_EQ(two.frames_declared, 2);
  const Scene many = load_scene(json("many.json", base + R"(, "frame_num": 5000)"));
  EXPECT_EQ(many.poses.size(), static_cast<std::size_t>(frames));
  ASSERT_FALSE(many.warnings.empty());
  EXPECT_NE(many.warnings.back().find("declares 5000 frames"), std::string::npos) << many.warnings.back();
  // The animation must fit the handles.
  write_dmat(path("bad_anim.dmat"), MatrixXd::Zero(2, 7));
  test::expect_throw_with<std::runtime_error>(
      [&] {
        load_scene(json("bad.json", R"("mesh_file": ")" + kDaisy + R"(daisy.obj", "constraint_file": "handles.dmat",
            "anim_file": "bad_anim.dmat", "dt": 0.01, "YM": 300, "pr": 0.4)"));
      },
      "3 handles need 18");
}

// ---- the bird's fixed region: read from <mesh stem>_fixed_region.dmat and held on the rig

TEST(RealDataScenes, BirdFixedRegionStaysOnTheRig) {
  const std::string dir = kData + "complementary-dynamics-2d/bird/bird_mouth_data/";
  const Scene s = load_scene(dir + "bird_mouth.json");
  const MatrixXd region = read_dmat(dir + "bird_mouth_fixed_region.dmat");
  ASSERT_GT(s.fixed.size(), 0);
  EXPECT_EQ(s.fixed.size(), region.size());
  EXPECT_EQ(s.fixed(0), static_cast<int>(region(0)) - 1);  // 1-based in the file
  SceneRunSettings run;
  run.solver = SolverKind::Full;
  Simulation sim = make_simulation(s, scene_simulation_options(s, run));
  double moved = 0.0;
  for (int f = 0; f < 30; ++f) {
    sim.advance(s.poses[static_cast<std::size_t>(f)]);
    const MatrixXd u = sim.displacement();
    moved = std::max(moved, u.cwiseAbs().maxCoeff());
    for (Index k = 0; k < s.fixed.size(); ++k) ASSERT_LT(u.row(s.fixed(k)).norm(), 1e-10) << "frame " << f;
  }
  EXPECT_GT(moved, 1e-6);  // the rest of the bird does move on its own
}

// ---- weights: renormalised within 1e-4, otherwise an error naming the vertex

TEST_F(RealData, WeightsThatAreNotAPartitionOfUnity) {
  const MatrixXd W = read_dmat(kSphere + "sphere.dmat");
  MatrixXd near = W;
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> noise(-5e-5, 5e-5);
  for (Index i = 0; i < near.rows(); ++i) near(i, 0) += noise(rng);
  const Scene ok = load_scene(sphere_with_weights(near));
  ASSERT_EQ(ok.warnings.size(), 1u);
  EXPECT_NE(ok.warnings[0].find("renormalised"), std::string::npos) << ok.warnings[0];
  EXPECT_LT((ok.W.rowwise().sum().array() - 1.0).abs().maxCoeff(), 1e-14);

  MatrixXd zero = W;
  zero.row(12).setZero();
  test::expect_throw_with<std::runtime_error>([&] { load_scene(sphere_with_weights(zero)); }, "vertex 12 (row 13)");
  MatrixXd far = W;
  far(20, 0) += 0.3;
  test::expect_throw_with<std::runtime_error>([&] { load_scene(sphere_with_weights(far)); }, "vertex 20 (row 21)");
  MatrixXd negative = W;
  negative(30, 0) = -0.2;
  negative(30, 1) = 1.2;
  test::expect_throw_with<std::runtime_error>([&] { load_scene(sphere_with_weights(negative)); }, "vertex 30 (row 31)");
}

TEST_F(RealData, AutomaticWeightsRefuseAMeshPartNoHandleReaches) {
  // Two separate squares; both point handles sit on the first.
  std::ostringstream obj;
  for (int part = 0; part < 2; ++part)
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 3; ++i) obj << "v " << (i + 5 * part) << " " << j << " 0\n";
  for (int part = 0; part < 2; ++part)
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 2; ++i) {
        const int a = 9 * part + 3 * j + i + 1;
        obj << "f " << a << " " << a + 1 << " " << a + 4 << "\nf " << a << " " << a + 4 << " " << a + 3 << "\n";
      }
  put("two.obj", obj.str());
  put("h.tgf", "1 0 0 0\n2 2 2 0\n#\n");
  put("a.txt", "2 1\n0 0 0\n0 0 0\n0 0 0\n0 0 0\n");
  test::expect_throw_with<std::runtime_error>(
      [&] {
        load_scene(json("two.json", R"("mesh_file": "two.obj", "handle_file": "h.tgf", "anim_file": "a.txt",
            "dt": 0.01, "YM": 100, "pr": 0.3)"));
      },
      "is not connected to any handle");
}

// ---- keys: unknown keys name the nearest one; YM / pr are never silently defaulted

TEST_F(RealData, UnknownKeysAndMissingMaterial) {
  const std::string files = R"("mesh_file": ")" + kSphere + R"(sphere.mesh", "handle_file": ")" + kSphere +
                            R"(sphere.tgf", "weight_file": ")" + kSphere + R"(sphere.dmat", "anim_file": ")" + kSphere +
                            R"(sphere_anim.txt", "dt": 0.01)";
  test::expect_throw_with<std::runtime_error>(
      [&] { load_scene(json("a.json", files + R"(, "youngs": 1e5, "pr": 0.3)")); }, "did you mean 'YM'?");
  test::expect_throw_with<std::runtime_error>([&] { load_scene(json("b.json", files + R"(, "pr": 0.3)")); },
                                              "missing \"YM\"");
  test::expect_throw_with<std::runtime_error>([&] { load_scene(json("c.json", files + R"(, "YM": 1e5)")); },
                                              "missing \"pr\"");
  // mu / lambda instead: converted, and validated as a positive Young's modulus.
  const Scene lame = load_scene(json("d.json", files + R"(, "mu": 1000, "lambda": 2000, "with_dynamics": true)"));
  EXPECT_NEAR(lame.ym, 1000.0 * (3 * 2000 + 2 * 1000) / 3000.0, 1e-9);
  EXPECT_NEAR(lame.pr, 2000.0 / 6000.0, 1e-15);
  EXPECT_TRUE(lame.with_dynamics);
  test::expect_throw_with<std::runtime_error>(
      [&] { load_scene(json("e.json", files + R"(, "mu": 1000, "lambda": -800)")); }, "3 lambda + 2 mu > 0");
}

// ---- boundary-dominated meshes: the leak field never switches the constraint off silently

struct BoundaryCase {
  int n;                  // vertices per side of the box grid
  double interior_share;  // (n-2)^3 / n^3
};

class BoundaryDominated : public ::testing::TestWithParam<BoundaryCase> {};

TEST_P(BoundaryDominated, TheConstraintHoldsTheRigAndTheMeshFollowsIt) {
  const BoundaryCase c = GetParam();
  const Mesh m = tetrahedralized_grid(c.n, c.n, c.n);
  // Two affine handles blended along x.
  MatrixXd W(m.X.rows(), 2);
  W.col(1) = m.X.col(0);
  W.col(0) = 1.0 - m.X.col(0).array();
  const SparseMatrix J = lbs_jacobian(m.X, W);
  VectorXd p0(24);
  for (int k = 0; k < 2; ++k) p0.segment(12 * k, 12) = MatrixXd::Identity(3, 4).reshaped();
  SimulationOptions o;
  o.cd.leak.kind = LeakFieldKind::Poisson;
  o.cd.leak.boundary_fallback = true;  // "auto", the CLI's default
  o.cd.ym = 1e4;
  Simulation sim(m.X, m.T, J, p0, o);
  const ComplementarityConstraint& cons = sim.constraint();
  EXPECT_EQ(cons.rank, cons.rig_rank) << "interior share " << c.interior_share;
  EXPECT_GE(cons.rig_rank, 18);  // x-blended affine handles: 7 functions per coordinate, 6 on a 2-vertex side
  if (c.interior_share == 0.0) {
    EXPECT_EQ(sim.leak_field_used(), LeakFieldKind::Centroid);
  }
  EXPECT_GT(sim.D().maxCoeff(), 0.0);
  // Translate the rig by 0.5 along x: the simulated mesh goes with it (it does not stay put).
  // The constraint holds the translation, so the D- and mass-weighted mean displacement is the
  // rig's own, exactly; the plain mean may lag behind (the jiggle) but not stay at the rest.
  VectorXd p = p0;
  for (int k = 0; k < 2; ++k) p(12 * k + 9) = 0.5;
  for (int f = 0; f < 10; ++f) sim.advance(p);
  const MatrixXd moved = sim.positions() - m.X;
  const VectorXd mD = massmatrix(m.X, m.T).diagonal().cwiseProduct(sim.D());
  EXPECT_NEAR(moved.col(0).dot(mD) / mD.sum(), 0.5, 1e-9) << "interior share " << c.interior_share;
  EXPECT_GT(moved.col(0).mean(), 0.3);
  EXPECT_LT(sim.residual(), 1e-8);

  // The Poisson field alone, without the fallback: on an all-boundary mesh it is zero, and the
  // constraint that would hold nothing is refused with the way out.
  o.cd.leak.boundary_fallback = false;
  if (c.interior_share == 0.0) {
    test::expect_throw_with<std::invalid_argument>([&] { Simulation(m.X, m.T, J, p0, o); }, "leak none");
  } else {
    const Simulation plain(m.X, m.T, J, p0, o);
    EXPECT_GT(plain.constraint().rank, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(InteriorShare, BoundaryDominated,
                         ::testing::Values(BoundaryCase{2, 0.0}, BoundaryCase{4, 0.125}, BoundaryCase{10, 0.512}),
                         [](const auto& info) { return "n" + std::to_string(info.param.n); });

// ---- a static rig and weights that sum to 1 only within rounding: no false divergence

TEST(RealDataDivergence, AStaticRigWithRoundedWeightsDoesNotDiverge) {
  const Mesh m = tetrahedralized_grid(4, 4, 4);
  MatrixXd W(m.X.rows(), 2);
  W.col(1) = m.X.col(0);
  W.col(0) = 1.0 - m.X.col(0).array();
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> noise(-1e-6, 1e-6);
  for (Index i = 0; i < W.rows(); ++i) W(i, 0) += noise(rng);  // rows sum to 1 +- 1e-6
  const SparseMatrix J = lbs_jacobian(m.X, W);
  VectorXd p0(24);
  for (int k = 0; k < 2; ++k) p0.segment(12 * k, 12) = MatrixXd::Identity(3, 4).reshaped();
  for (SolverKind solver : {SolverKind::Full, SolverKind::Fast}) {
    SimulationOptions o;
    o.solver = solver;
    o.cd.modes = 8;
    o.cd.clusters = 10;
    o.cd.dt = 1.0 / 30;
    Simulation sim(m.X, m.T, J, p0, o);
    for (int f = 0; f < 30; ++f) EXPECT_NO_THROW(sim.advance(p0)) << "step " << f;
    EXPECT_LT(sim.displacement().cwiseAbs().maxCoeff(), 1e-5);  // the weights' own 1e-6 error
  }
}

// ---- a 60,000-bone chain listed leaf first: iterative forward kinematics, no stack overflow

TEST_F(RealData, SixtyThousandBoneChainListedLeafFirst) {
  const Index B = 60000;
  MatrixXd C(B + 1, 3);
  for (Index k = 0; k <= B; ++k) C.row(k) << 1e-3 * static_cast<double>(k), 0, 0;
  // Bone b runs from joint B-b-1 to joint B-b: bone 0 is the leaf, the root comes last.
  MatrixXi BE(B, 2);
  for (Index b = 0; b < B; ++b) BE.row(b) << static_cast<int>(B - b - 1), static_cast<int>(B - b);
  const VectorXi P = bone_parents(BE);
  EXPECT_EQ(P(B - 1), -1);
  EXPECT_EQ(P(0), 1);
  std::vector<Eigen::Quaterniond> dQ(static_cast<std::size_t>(B), Eigen::Quaterniond::Identity());
  std::vector<Eigen::Vector3d> dT(static_cast<std::size_t>(B), Eigen::Vector3d::Zero());
  dQ[static_cast<std::size_t>(B - 1)] = Eigen::Quaterniond(Eigen::AngleAxisd(EIGEN_PI / 2, Eigen::Vector3d::UnitZ()));
  const std::vector<MatrixXd> T = forward_kinematics_3d(C, BE, P, dQ, dT);
  ASSERT_EQ(static_cast<Index>(T.size()), B);
  // The root's quarter turn about joint 0 carries the whole chain: the leaf's tip goes to +y.
  const Eigen::Vector3d tip = T[0].leftCols(3) * C.row(B).transpose() + T[0].col(3);
  EXPECT_LT((tip - Eigen::Vector3d(0, 1e-3 * B, 0)).norm(), 1e-9);
  // The same chain through a TGF file and the reader.
  const std::string chain = path("chain.tgf");
  {
    std::ofstream out(chain);
    for (Index k = 0; k <= B; ++k) out << k + 1 << " " << C(k, 0) << " 0 0\n";
    out << "#\n";
    for (Index b = 0; b < B; ++b) out << BE(b, 0) + 1 << " " << BE(b, 1) + 1 << " 1 0 0\n";
  }
  const TgfGraph g = read_tgf(chain);
  EXPECT_EQ(g.BE.rows(), B);
  EXPECT_EQ(bone_parents(g.BE), P);
}

// ---- readers take regular files only (a FIFO would block, a device would grow forever); a
// blocking reader would hang here until the suite's timeout

TEST_F(RealData, ReadersRefuseFifosAndDevices) {
  const std::string fifo = path("mesh.obj");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  test::expect_throw_with<std::runtime_error>([&] { read_obj(fifo); }, "not a regular file");
  fs::create_symlink("/dev/urandom", path("random.mesh"));
  test::expect_throw_with<std::runtime_error>([&] { read_mesh(path("random.mesh")); }, "not a regular file");
  test::expect_throw_with<std::runtime_error>([&] { read_dmat(path("random.mesh")); }, "not a regular file");
  // A scene naming the FIFO is refused the same way (and does not block).
  test::expect_throw_with<std::runtime_error>(
      [&] {
        load_scene(json("f.json", R"("mesh_file": "mesh.obj", "handle_file": "h.tgf", "anim_file": "a.txt",
            "dt": 0.01, "YM": 100, "pr": 0.3)"));
      },
      "not a regular file");
}

}  // namespace test_real_data
}  // namespace fastcd
