#include "fastcd/rigs/wire_deformer.hpp"

#include <chrono>
#include <cmath>
#include <random>

#include "fastcd/io/mesh_io.hpp"
#include "fastcd/io/rig_io.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_wire_deformer {

struct WireScene {
  MatrixXd X;  // #V x 2
  MatrixXd C;  // #H x 2 rest handles
};

/// A 4-handle wavy wire inside a 25 x 9 grid of points around it.
WireScene synthetic() {
  WireScene s;
  s.C.resize(4, 2);
  s.C << 0, 0, 1, 0.3, 2, -0.1, 3.2, 0.5;
  s.X.resize(25 * 9, 2);
  for (int i = 0; i < 25; ++i)
    for (int j = 0; j < 9; ++j) s.X.row(i * 9 + j) << -0.4 + 4.0 * i / 24, -1.0 + 2.0 * j / 8;
  return s;
}

/// The daisy of the release, normalised as daisy.m does: centre = bounding-box centre of the
/// mesh, scale = largest centred coordinate max(V(:)); the handles get the same transform.
WireScene daisy() {
  const std::string dir = std::string(FASTCD_SHARED_DIR) + "/data/complementary-dynamics-2d/daisy/daisy_data/";
  WireScene s;
  s.X = read_obj_2d(dir + "daisy.obj").X;
  s.C = read_tgf(dir + "daisy.tgf").C.leftCols(2);
  const Eigen::RowVector2d centre = (s.X.colwise().maxCoeff() + s.X.colwise().minCoeff()) / 2;
  s.X.rowwise() -= centre;
  s.C.rowwise() -= centre;
  const double scale = s.X.maxCoeff();
  s.X /= scale;
  s.C /= scale;
  return s;
}

VectorXd deform(const WireDeformer& w, const VectorXd& p) {
  VectorXd x(2 * w.closest.size());
  wire_deform(w, p, x);
  return x;
}

MatrixXd finite_difference_jacobian(const WireDeformer& w, const VectorXd& p, double h) {
  MatrixXd J(2 * w.closest.size(), p.size());
  for (Index c = 0; c < p.size(); ++c) {
    VectorXd pp = p, pm = p;
    pp(c) += h;
    pm(c) -= h;
    J.col(c) = (deform(w, pp) - deform(w, pm)) / (2 * h);
  }
  return J;
}

Eigen::Matrix2d rotation(double a) {
  Eigen::Matrix2d R;
  R << std::cos(a), -std::sin(a), std::sin(a), std::cos(a);
  return R;
}

// --------------------------------------------------------------------------- the curve

TEST(WireCatmullRom, SamplesLikeTheRelease) {
  const WireScene s = synthetic();
  const int n = 30;
  const CatmullRomSamples c = catmull_rom_samples(s.C, n);
  ASSERT_EQ(c.S.rows(), 3 * n + 1);  // (#H - 1) * n + 1
  for (Index k = 0; k < 4; ++k) EXPECT_LT((c.S.row(k * n) - s.C.row(k)).norm(), 1e-15) << "handle " << k;
  for (Index i = 0; i < c.S.rows(); ++i) {
    EXPECT_NEAR(c.T.row(i).norm(), 1.0, 1e-15);
    EXPECT_EQ(c.N(i, 0), -c.T(i, 1));
    EXPECT_EQ(c.N(i, 1), c.T(i, 0));
  }
  // Handle tangents: one-sided differences at the ends, central differences inside.
  const auto parallel = [](const Eigen::RowVector2d& a, const Eigen::RowVector2d& b) {
    return std::abs(a.x() * b.y() - a.y() * b.x()) < 1e-14 * a.norm() * b.norm() && a.dot(b) > 0;
  };
  EXPECT_TRUE(parallel(c.T.row(0), s.C.row(1) - s.C.row(0)));
  EXPECT_TRUE(parallel(c.T.row(n), s.C.row(2) - s.C.row(0)));
  EXPECT_TRUE(parallel(c.T.row(2 * n), s.C.row(3) - s.C.row(1)));
  EXPECT_TRUE(parallel(c.T.row(3 * n), s.C.row(3) - s.C.row(2)));
  // The tangents are the derivative of the sampled curve (central differences of samples).
  for (Index i = 1; i + 1 < c.S.rows(); ++i) {
    if (i % n == 0) continue;  // C1 at the handles, but the difference straddles two cubics
    const Eigen::RowVector2d d = (c.S.row(i + 1) - c.S.row(i - 1)).normalized();
    EXPECT_LT((d - c.T.row(i)).norm(), 2e-3) << "sample " << i;
  }
  // Equally spaced collinear handles: the curve is the line with uniform speed.
  MatrixXd line(3, 2);
  line << 1, 2, 2, 2.5, 3, 3;
  const CatmullRomSamples l = catmull_rom_samples(line, 4);
  for (Index i = 0; i < l.S.rows(); ++i)
    EXPECT_LT((l.S.row(i) - (line.row(0) + (line.row(1) - line.row(0)) * (i / 4.0))).norm(), 1e-15);
}

// ------------------------------------------------------------------------ the deformer

TEST(WireDeformer, RestHandlesReproduceTheMesh) {
  for (const WireScene& s : {synthetic(), daisy()}) {
    const WireDeformer w = wire_deformer_precompute(s.X, s.C);
    ASSERT_EQ(w.closest.size(), s.X.rows());
    ASSERT_EQ(w.rest.S.rows(), (s.C.rows() - 1) * 30 + 1);
    const VectorXd x = deform(w, flatten(s.C));
    EXPECT_LT((x - flatten(s.X)).cwiseAbs().maxCoeff(), 1e-12);
    // Each vertex is bound to its closest rest sample (the first on ties).
    for (Index i = 0; i < s.X.rows(); ++i) {
      const VectorXd d2 = (w.rest.S.rowwise() - s.X.row(i)).rowwise().squaredNorm();
      Index first = 0;
      while (d2(first) != d2.minCoeff()) ++first;
      ASSERT_EQ(w.closest(i), first);
    }
  }
  // A tie: the vertex midway between samples 0 and 1 goes to sample 0, as in MATLAB's find.
  MatrixXd C(2, 2);
  C << 0, 0, 1, 0;
  const MatrixXd X = (MatrixXd(1, 2) << 0.05, 0.5).finished();
  EXPECT_EQ(wire_deformer_precompute(X, C, 10).closest(0), 0);
}

TEST(WireDeformer, FollowsTheSampleFramesOfTheRelease) {
  // wire_deform = [t n] [t0 n0]^-1 (X_i - s0) + s, with the frames of catmull_rom_samples.
  const WireScene s = synthetic();
  const WireDeformer w = wire_deformer_precompute(s.X, s.C, 12);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> U(-0.3, 0.3);
  MatrixXd P = s.C;
  for (Index i = 0; i < P.size(); ++i) P(i) += U(rng);
  const CatmullRomSamples c0 = catmull_rom_samples(s.C, 12), c = catmull_rom_samples(P, 12);
  const VectorXd x = deform(w, flatten(P));
  for (Index i = 0; i < s.X.rows(); ++i) {
    const Index k = w.closest(i);
    Eigen::Matrix2d F0, F;
    F0 << c0.T.row(k).transpose(), c0.N.row(k).transpose();
    F << c.T.row(k).transpose(), c.N.row(k).transpose();
    const Eigen::Vector2d ref = F * F0.inverse() * (s.X.row(i) - c0.S.row(k)).transpose() + c.S.row(k).transpose();
    EXPECT_LT((x.segment<2>(2 * i) - ref).norm(), 1e-13) << "vertex " << i;
  }
}

TEST(WireDeformer, RigidMotionOfTheHandlesMovesTheMeshRigidly) {
  for (const WireScene& s : {synthetic(), daisy()}) {
    const WireDeformer w = wire_deformer_precompute(s.X, s.C);
    const Eigen::Matrix2d R = rotation(0.7);
    const Eigen::RowVector2d t(0.3, -1.2);
    // From the rest pose ...
    const MatrixXd C1 = (s.C * R.transpose()).rowwise() + t;
    const MatrixXd X1 = (s.X * R.transpose()).rowwise() + t;
    EXPECT_LT((deform(w, flatten(C1)) - flatten(X1)).cwiseAbs().maxCoeff(), 1e-12);
    // ... and from a deformed pose.
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> U(-0.2, 0.2);
    MatrixXd P = s.C;
    for (Index i = 0; i < P.size(); ++i) P(i) += U(rng);
    const MatrixXd x = unflatten(deform(w, flatten(P)), 2);
    const MatrixXd P1 = (P * R.transpose()).rowwise() + t;
    const MatrixXd x1 = (x * R.transpose()).rowwise() + t;
    EXPECT_LT((deform(w, flatten(P1)) - flatten(x1)).cwiseAbs().maxCoeff(), 1e-12);
  }
}

TEST(WireDeformer, AnalyticJacobianMatchesFiniteDifferences) {
  for (const WireScene& s : {synthetic(), daisy()}) {
    const WireDeformer w = wire_deformer_precompute(s.X, s.C);
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> U(-0.15, 0.15);
    for (int trial = 0; trial < 3; ++trial) {
      MatrixXd P = s.C;
      for (Index i = 0; i < P.size(); ++i) P(i) += U(rng);
      const VectorXd p = flatten(P);
      const SparseMatrix J = wire_jacobian(w, p);
      ASSERT_EQ(J.rows(), 2 * s.X.rows());
      ASSERT_EQ(J.cols(), 2 * s.C.rows());
      const MatrixXd Jd = MatrixXd(J);
      const MatrixXd Jfd = finite_difference_jacobian(w, p, 1e-6);
      const double rel = (Jd - Jfd).cwiseAbs().maxCoeff() / Jfd.cwiseAbs().maxCoeff();
      EXPECT_LT(rel, 1e-6) << "trial " << trial;
      RecordProperty((s.C.rows() == 3 ? "daisy" : "synthetic") + std::string("_jacobian_fd_relative_error_") +
                         std::to_string(trial),
                     test::sci(rel));
    }
    // At rest too, and translations of all handles translate everything: J * [1 0 1 0 ...] = [1 0 1 0 ...].
    const SparseMatrix J0 = wire_jacobian(w, flatten(s.C));
    VectorXd ex = VectorXd::Zero(2 * s.C.rows()), ey = ex;
    for (Index k = 0; k < s.C.rows(); ++k) ex(2 * k) = 1, ey(2 * k + 1) = 1;
    const VectorXd jx = J0 * ex, jy = J0 * ey;
    for (Index i = 0; i < s.X.rows(); ++i) {
      EXPECT_NEAR(jx(2 * i), 1.0, 1e-12);
      EXPECT_NEAR(jx(2 * i + 1), 0.0, 1e-12);
      EXPECT_NEAR(jy(2 * i), 0.0, 1e-12);
      EXPECT_NEAR(jy(2 * i + 1), 1.0, 1e-12);
    }
  }
}

TEST(WireDeformer, DaisyTimings) {
  const WireScene s = daisy();
  auto t0 = std::chrono::steady_clock::now();
  const WireDeformer w = wire_deformer_precompute(s.X, s.C);
  const double pre = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const VectorXd p = flatten(s.C) + VectorXd::Constant(2 * s.C.rows(), 0.05);
  VectorXd x(2 * s.X.rows());
  const int reps = 200;
  t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r) wire_deform(w, p, x);
  const double def = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / reps;
  SparseMatrix J;
  t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r) J = wire_jacobian(w, p);
  const double jac = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / reps;
  EXPECT_EQ(J.rows(), 2 * 702);
  RecordProperty("daisy_vertices", std::to_string(s.X.rows()));
  RecordProperty("daisy_precompute_seconds", test::sci(pre));
  RecordProperty("daisy_deform_seconds", test::sci(def));
  RecordProperty("daisy_jacobian_seconds", test::sci(jac));
  RecordProperty("daisy_jacobian_nonzeros", std::to_string(J.nonZeros()));
}

TEST(WireDeformer, RejectsBadInput) {
  const WireScene s = synthetic();
  using E = std::invalid_argument;
  test::expect_throw_with<E>([&] { wire_deformer_precompute(s.X, s.C.topRows(1)); },
                             "handles must be #H x 2 with #H >= 2, got 1 x 2");
  test::expect_throw_with<E>([&] { wire_deformer_precompute(s.X, MatrixXd::Zero(3, 3)); }, "got 3 x 3");
  test::expect_throw_with<E>([&] { wire_deformer_precompute(MatrixXd::Zero(4, 3), s.C); },
                             "X must be #V x 2, got 4 x 3");
  test::expect_throw_with<E>([&] { wire_deformer_precompute(s.X, s.C, 0); }, "samples_per_segment must be >= 1, got 0");
  MatrixXd nan = s.X;
  nan(5, 1) = std::nan("");
  test::expect_throw_with<E>([&] { wire_deformer_precompute(nan, s.C); }, "X(5, 1) is not finite");
  MatrixXd cnan = s.C;
  cnan(2, 0) = std::nan("");
  test::expect_throw_with<E>([&] { wire_deformer_precompute(s.X, cnan); }, "handles(2, 0) is not finite");
  MatrixXd same = s.C;
  same.row(1) = same.row(0);
  same.row(2) = same.row(0);
  same.row(3) = same.row(0);
  test::expect_throw_with<E>([&] { wire_deformer_precompute(s.X, same); },
                             "tangent vanishes at sample 0 (segment 0, t = 0/30)");

  const WireDeformer w = wire_deformer_precompute(s.X, s.C);
  VectorXd x(2 * s.X.rows());
  test::expect_throw_with<E>([&] { wire_deform(w, VectorXd::Zero(6), x); },
                             "p must have #H*2 = 8 entries (4 handles, interleaved), got 6");
  VectorXd small(5);
  test::expect_throw_with<E>([&] { wire_deform(w, flatten(s.C), small); }, "x must have #V*2 = 450 entries, got 5");
  VectorXd pnan = flatten(s.C);
  pnan(3) = std::nan("");
  test::expect_throw_with<E>([&] { wire_deform(w, pnan, x); }, "p(3, 0) is not finite");
  test::expect_throw_with<E>([&] { wire_jacobian(w, pnan); }, "p(3, 0) is not finite");
  test::expect_throw_with<E>([&] { wire_jacobian(w, VectorXd::Zero(9)); }, "p must have #H*2 = 8 entries");
  // Handles moved onto one point: no frame.
  test::expect_throw_with<E>([&] { wire_deform(w, VectorXd::Zero(8), x); }, "tangent vanishes at sample");
}

}  // namespace test_wire_deformer
}  // namespace fastcd
