#include "fastcd/rigs/cage_coordinates.hpp"

#include <chrono>
#include <cmath>

#include "fastcd/io/mesh_io.hpp"
#include "fastcd/io/rig_io.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_cage_coordinates {

constexpr double kPi = 3.14159265358979323846;

struct Cage {
  MatrixXd V;
  MatrixXi F;
};

// ------------------------------------------------------------------------------ fixtures

Cage unit_square() {
  Cage c;
  c.V.resize(4, 2);
  c.V << 0, 0, 1, 0, 1, 1, 0, 1;
  c.F.resize(4, 2);
  c.F << 0, 1, 1, 2, 2, 3, 3, 0;
  return c;
}

/// Regular n-gon of radius r around (0.3, -0.2), counter-clockwise.
Cage regular_polygon(int n, double r = 1.5) {
  Cage c;
  c.V.resize(n, 2);
  c.F.resize(n, 2);
  for (int i = 0; i < n; ++i) {
    c.V.row(i) << 0.3 + r * std::cos(2 * kPi * i / n), -0.2 + r * std::sin(2 * kPi * i / n);
    c.F.row(i) << i, (i + 1) % n;
  }
  return c;
}

/// Reverses every edge / triangle (the opposite orientation).
Cage reversed(Cage c) {
  for (Index r = 0; r < c.F.rows(); ++r) c.F.row(r) = c.F.row(r).reverse().eval();
  return c;
}

/// Box [0,a] x [0,b] x [0,c], triangles oriented outwards.
Cage box(double a = 1, double b = 1, double c = 1) {
  Cage k;
  k.V.resize(8, 3);
  for (int i = 0; i < 8; ++i) k.V.row(i) << (i & 1) * a, ((i >> 1) & 1) * b, ((i >> 2) & 1) * c;
  k.F.resize(12, 3);
  k.F << 0, 2, 1, 1, 2, 3,  // z = 0
      4, 5, 6, 5, 7, 6,     // z = c
      0, 1, 4, 1, 5, 4,     // y = 0
      2, 6, 3, 3, 6, 7,     // y = b
      0, 4, 2, 2, 4, 6,     // x = 0
      1, 3, 5, 3, 7, 5;     // x = a
  return k;
}

Cage octahedron() {
  Cage k;
  k.V.resize(6, 3);
  k.V << 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1;
  k.F.resize(8, 3);
  k.F << 0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4, 2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5;
  return k;
}

/// A non-convex L-shaped prism: the L {(0,0),(2,0),(2,1),(1,1),(1,2),(0,2)} extruded over
/// z in [0, 1]. Interior points with y = 1 (x < 1) or x = 1 (y < 1) are coplanar with faces.
Cage l_prism() {
  Cage k;
  const double L[6][2] = {{0, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 2}, {0, 2}};
  k.V.resize(12, 3);
  for (int i = 0; i < 6; ++i) {
    k.V.row(i) << L[i][0], L[i][1], 0;
    k.V.row(6 + i) << L[i][0], L[i][1], 1;
  }
  // L triangulated with the reflex corner 3: (0,1,2)? no: (3,0,1),(3,1,2),(3,4,5),(3,5,0).
  const int tri[4][3] = {{3, 0, 1}, {3, 1, 2}, {3, 4, 5}, {3, 5, 0}};
  std::vector<Eigen::RowVector3i> F;
  for (const auto& t : tri) {
    F.emplace_back(t[0], t[2], t[1]);              // bottom, facing -z
    F.emplace_back(6 + t[0], 6 + t[1], 6 + t[2]);  // top, facing +z
  }
  for (int i = 0; i < 6; ++i) {  // sides, facing outwards of the counter-clockwise L
    const int j = (i + 1) % 6;
    F.emplace_back(i, j, 6 + j);
    F.emplace_back(i, 6 + j, 6 + i);
  }
  k.F.resize(static_cast<Index>(F.size()), 3);
  for (std::size_t r = 0; r < F.size(); ++r) k.F.row(static_cast<Index>(r)) = F[r];
  return k;
}

Cage walrus_cage() {
  const TgfGraph g =
      read_tgf(std::string(FASTCD_SHARED_DIR) + "/data/complementary-dynamics-2d/walrus/walrus_data/walrus_cage.tgf");
  return {g.C.leftCols(2), g.E};
}

MatrixXd walrus_points() {
  return read_obj_2d(std::string(FASTCD_SHARED_DIR) + "/data/complementary-dynamics-2d/walrus/walrus_data/walrus.obj")
      .X;
}

/// Regular grid of k^dim points strictly inside the box [lo, hi] (cell centres).
MatrixXd interior_grid(const Eigen::VectorXd& lo, const Eigen::VectorXd& hi, int k) {
  const Index dim = lo.size();
  const Index n = dim == 2 ? k * k : k * k * k;
  MatrixXd P(n, dim);
  for (Index i = 0; i < n; ++i) {
    Index r = i;
    for (Index a = 0; a < dim; ++a) {
      P(i, a) = lo(a) + (hi(a) - lo(a)) * ((r % k) + 0.5) / k;
      r /= k;
    }
  }
  return P;
}

/// Points with even-odd crossing parity 1 (an independent inside test for polygons).
bool inside_polygon(const Eigen::RowVector2d& x, const Cage& c) {
  bool in = false;
  for (Index e = 0; e < c.F.rows(); ++e) {
    const Eigen::RowVector2d a = c.V.row(c.F(e, 0)), b = c.V.row(c.F(e, 1));
    if ((a.y() > x.y()) != (b.y() > x.y()) && x.x() < a.x() + (x.y() - a.y()) * (b.x() - a.x()) / (b.y() - a.y()))
      in = !in;
  }
  return in;
}

double cage_size(const MatrixXd& V) { return (V.colwise().maxCoeff() - V.colwise().minCoeff()).norm(); }
double partition_error(const MatrixXd& W) { return (W.rowwise().sum().array() - 1.0).abs().maxCoeff(); }
double linear_error(const MatrixXd& W, const MatrixXd& V, const MatrixXd& X) {
  return (W * V - X).cwiseAbs().maxCoeff();
}

/// Ju, Schaefer & Warren 2005, their pseudo-code (arcsin, c_i, s_i) written out literally,
/// for points away from the cage: an independent reference for the 3D coordinates.
Eigen::RowVectorXd jsw_pseudocode(const Eigen::Vector3d& x, const Cage& k) {
  const Index n = k.V.rows();
  std::vector<Eigen::Vector3d> u(n);
  std::vector<double> d(n);
  for (Index j = 0; j < n; ++j) {
    u[j] = k.V.row(j).transpose() - x;
    d[j] = u[j].norm();
    u[j] /= d[j];
  }
  Eigen::RowVectorXd w = Eigen::RowVectorXd::Zero(n);
  for (Index f = 0; f < k.F.rows(); ++f) {
    const int p[3] = {k.F(f, 0), k.F(f, 1), k.F(f, 2)};
    double theta[3], c[3], s[3];
    for (int i = 0; i < 3; ++i) theta[i] = 2 * std::asin((u[p[(i + 1) % 3]] - u[p[(i + 2) % 3]]).norm() / 2);
    const double h = (theta[0] + theta[1] + theta[2]) / 2;
    const double sign = u[p[0]].dot(u[p[1]].cross(u[p[2]])) < 0 ? -1.0 : 1.0;
    bool skip = false;
    for (int i = 0; i < 3; ++i) {
      c[i] =
          2 * std::sin(h) * std::sin(h - theta[i]) / (std::sin(theta[(i + 1) % 3]) * std::sin(theta[(i + 2) % 3])) - 1;
      s[i] = sign * std::sqrt(std::max(0.0, 1 - c[i] * c[i]));
      skip = skip || std::abs(s[i]) < 1e-12;
    }
    if (skip) continue;
    for (int i = 0; i < 3; ++i) {
      const int ip = (i + 1) % 3, im = (i + 2) % 3;
      w(p[i]) += (theta[i] - c[ip] * theta[im] - c[im] * theta[ip]) / (d[p[i]] * std::sin(theta[ip]) * s[im]);
    }
  }
  return w / w.sum();
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// ---------------------------------------------------------------------- 2D mean value

TEST(MeanValueCoordinates2D, ConvexCagesInterior) {
  for (const Cage& c : {unit_square(), regular_polygon(7)}) {
    const Eigen::VectorXd lo = c.V.colwise().minCoeff(), hi = c.V.colwise().maxCoeff();
    MatrixXd X = interior_grid(lo, hi, 15);
    // Keep the points inside the polygon.
    std::vector<Index> keep;
    for (Index i = 0; i < X.rows(); ++i)
      if (inside_polygon(X.row(i), c)) keep.push_back(i);
    X = X(keep, Eigen::all).eval();
    const MatrixXd W = mean_value_coordinates(X, c.V, c.F);
    ASSERT_EQ(W.rows(), X.rows());
    ASSERT_EQ(W.cols(), c.V.rows());
    EXPECT_LT(partition_error(W), 1e-14);
    EXPECT_LT(linear_error(W, c.V, X), 1e-14 * cage_size(c.V) * 10);
    EXPECT_GE(W.minCoeff(), 0.0);  // convex cage: non-negative
    // Either orientation gives the same coordinates.
    EXPECT_LT((mean_value_coordinates(X, c.V, reversed(c).F) - W).cwiseAbs().maxCoeff(), 1e-14);
  }
  // Floater's closed form at the square's centre: by symmetry, 1/4 each.
  const Cage sq = unit_square();
  const MatrixXd centre = (MatrixXd(1, 2) << 0.5, 0.5).finished();
  EXPECT_LT((mean_value_coordinates(centre, sq.V, sq.F).array() - 0.25).abs().maxCoeff(), 1e-15);
}

TEST(MeanValueCoordinates2D, InterpolatesOnTheCage) {
  const Cage c = regular_polygon(6);
  // At the vertices: the identity, exactly.
  EXPECT_TRUE(mean_value_coordinates(c.V, c.V, c.F) == MatrixXd::Identity(6, 6));
  // On the edges (and within 1e-12 of the cage size): linear interpolation of the two ends.
  for (double offset : {0.0, 1e-14, -1e-14}) {
    for (Index e = 0; e < 6; ++e) {
      const Eigen::RowVector2d a = c.V.row(c.F(e, 0)), b = c.V.row(c.F(e, 1));
      const Eigen::RowVector2d normal = Eigen::RowVector2d(b.y() - a.y(), a.x() - b.x()).normalized();
      for (double t : {0.5, 0.3, 1e-3}) {
        const MatrixXd x = (1 - t) * a + t * b + offset * normal;
        const MatrixXd W = mean_value_coordinates(x, c.V, c.F);
        ASSERT_TRUE(W.allFinite());
        EXPECT_NEAR(W(0, c.F(e, 0)), 1 - t, 1e-14);
        EXPECT_NEAR(W(0, c.F(e, 1)), t, 1e-14);
        EXPECT_NEAR(W.sum(), 1.0, 1e-15);
      }
    }
  }
  // Just beyond the snapping distance the closed form takes over, continuously and exactly
  // reproducing linear functions.
  const Eigen::RowVector2d a = c.V.row(0), b = c.V.row(1);
  const Eigen::RowVector2d inward = Eigen::RowVector2d(a.y() - b.y(), b.x() - a.x()).normalized();
  for (double delta : {1e-4, 1e-8, 1e-11}) {
    const MatrixXd x = 0.7 * a + 0.3 * b + delta * inward;
    const MatrixXd W = mean_value_coordinates(x, c.V, c.F);
    EXPECT_LT(linear_error(W, c.V, x), 1e-14);
    EXPECT_NEAR(W(0, 0), 0.7, 10 * delta);
    EXPECT_NEAR(W(0, 1), 0.3, 10 * delta);
    EXPECT_GE(W.minCoeff(), 0.0);
  }
}

TEST(MeanValueCoordinates2D, WalrusCageEnclosesTheMeshAndReproducesIt) {
  const Cage c = walrus_cage();
  const MatrixXd X = walrus_points();  // file units, like the cage
  ASSERT_EQ(c.V.rows(), 9);
  ASSERT_EQ(c.F.rows(), 9);
  for (Index i = 0; i < X.rows(); ++i) ASSERT_TRUE(inside_polygon(X.row(i), c)) << "walrus vertex " << i;
  const auto t0 = std::chrono::steady_clock::now();
  const MatrixXd W = mean_value_coordinates(X, c.V, c.F);
  const double seconds = seconds_since(t0);
  const double lin = linear_error(W, c.V, X) / cage_size(c.V);
  EXPECT_LT(partition_error(W), 1e-13);
  EXPECT_LT(lin, 1e-14);
  EXPECT_TRUE(mean_value_coordinates(c.V, c.V, c.F) == MatrixXd::Identity(9, 9));
  RecordProperty("walrus_points", std::to_string(X.rows()));
  RecordProperty("walrus_mvc_seconds", test::sci(seconds));
  RecordProperty("walrus_mvc_linear_error_relative", test::sci(lin));
  RecordProperty("walrus_mvc_min_weight", test::sci(W.minCoeff()));
}

TEST(MeanValueCoordinates2D, OutsideTheCageStillAffine) {
  // Documented behaviour outside: well defined, rows sum to 1, linear functions reproduced;
  // weights take both signs.
  for (const Cage& c : {unit_square(), walrus_cage()}) {
    const double size = cage_size(c.V);
    const Eigen::VectorXd lo = c.V.colwise().minCoeff().array() - size, hi = c.V.colwise().maxCoeff().array() + size;
    MatrixXd X = interior_grid(lo, hi, 12);
    std::vector<Index> out;
    for (Index i = 0; i < X.rows(); ++i)
      if (!inside_polygon(X.row(i), c)) out.push_back(i);
    X = X(out, Eigen::all).eval();
    const MatrixXd W = mean_value_coordinates(X, c.V, c.F);
    EXPECT_TRUE(W.allFinite());
    EXPECT_LT(partition_error(W), 1e-11);
    EXPECT_LT(linear_error(W, c.V, X) / size, 1e-11);
    EXPECT_LT(W.minCoeff(), 0.0);
  }
}

TEST(MeanValueCoordinates2D, PolygonWithAHole) {
  // Outer square counter-clockwise, inner square clockwise: points in the ring.
  Cage c;
  c.V.resize(8, 2);
  c.V << 0, 0, 3, 0, 3, 3, 0, 3, 1, 1, 1, 2, 2, 2, 2, 1;
  c.F.resize(8, 2);
  c.F << 0, 1, 1, 2, 2, 3, 3, 0, 4, 5, 5, 6, 6, 7, 7, 4;
  const MatrixXd X = (MatrixXd(4, 2) << 0.5, 0.5, 2.5, 1.5, 1.5, 0.2, 0.9, 2.9).finished();
  const MatrixXd W = mean_value_coordinates(X, c.V, c.F);
  EXPECT_LT(partition_error(W), 1e-14);
  EXPECT_LT(linear_error(W, c.V, X), 1e-14);
}

// ---------------------------------------------------------------------- 3D mean value

TEST(MeanValueCoordinates3D, ConvexCagesInterior) {
  for (const Cage& k : {box(1.0, 2.0, 0.5), octahedron()}) {
    const Eigen::VectorXd lo = k.V.colwise().minCoeff(), hi = k.V.colwise().maxCoeff();
    MatrixXd X = interior_grid(lo, hi, 9);
    if (k.V.rows() == 6) {  // octahedron: keep |x|_1 < 1
      std::vector<Index> keep;
      for (Index i = 0; i < X.rows(); ++i)
        if (X.row(i).cwiseAbs().sum() < 0.999) keep.push_back(i);
      X = X(keep, Eigen::all).eval();
    }
    const MatrixXd W = mean_value_coordinates(X, k.V, k.F);
    EXPECT_LT(partition_error(W), 1e-13);
    EXPECT_LT(linear_error(W, k.V, X), 1e-13);
    EXPECT_GE(W.minCoeff(), 0.0);
    EXPECT_TRUE(mean_value_coordinates(k.V, k.V, k.F) == MatrixXd::Identity(k.V.rows(), k.V.rows()));
    EXPECT_LT((mean_value_coordinates(X, k.V, reversed(k).F) - W).cwiseAbs().maxCoeff(), 1e-14);
    RecordProperty(k.V.rows() == 8 ? "box_linear_error" : "octahedron_linear_error",
                   test::sci(linear_error(W, k.V, X)));
  }
}

TEST(MeanValueCoordinates3D, OutsideAConvexCageStillAffine) {
  const Cage k = octahedron();
  MatrixXd X = interior_grid(Eigen::Vector3d::Constant(-3), Eigen::Vector3d::Constant(3), 7);
  std::vector<Index> out;
  for (Index i = 0; i < X.rows(); ++i)
    if (X.row(i).cwiseAbs().sum() > 1.01) out.push_back(i);
  X = X(out, Eigen::all).eval();
  const MatrixXd W = mean_value_coordinates(X, k.V, k.F);
  EXPECT_TRUE(W.allFinite());
  EXPECT_LT(partition_error(W), 1e-12);
  EXPECT_LT(linear_error(W, k.V, X), 1e-12);
  EXPECT_LT(W.minCoeff(), 0.0);
}

TEST(MeanValueCoordinates3D, MatchesJuSchaeferWarrenPseudocode) {
  double worst = 0;
  for (const Cage& k : {box(1.0, 2.0, 0.5), octahedron(), l_prism()}) {
    const Eigen::VectorXd lo = k.V.colwise().minCoeff(), hi = k.V.colwise().maxCoeff();
    const MatrixXd X = interior_grid(lo, hi, 4);
    const MatrixXd W = mean_value_coordinates(X, k.V, k.F);
    for (Index i = 0; i < X.rows(); ++i) {
      if (k.V.rows() == 6 && X.row(i).cwiseAbs().sum() > 0.9) continue;  // outside the octahedron
      if (k.V.rows() == 12 && X(i, 0) > 1 && X(i, 1) > 1) continue;      // outside the L
      const Eigen::RowVectorXd ref = jsw_pseudocode(X.row(i).transpose(), k);
      worst = std::max(worst, (W.row(i) - ref).cwiseAbs().maxCoeff());
    }
  }
  EXPECT_LT(worst, 1e-10);
  RecordProperty("max_difference_to_jsw_pseudocode", test::sci(worst));
}

TEST(MeanValueCoordinates3D, OnAndNearTheCage) {
  const Cage k = box(1.0, 2.0, 0.5);
  // Points on faces, edges and at a vertex: barycentric interpolation on the simplex.
  const MatrixXd X = (MatrixXd(4, 3) << 0.3, 0.4, 0.0,  // face z = 0
                      0.5, 0.0, 0.25,                   // face y = 0
                      1.0, 1.0, 0.5,                    // edge x = 1, z = 0.5
                      0.0, 0.0, 0.0)                    // vertex 0
                         .finished();
  const MatrixXd W = mean_value_coordinates(X, k.V, k.F);
  EXPECT_TRUE(W.allFinite());
  EXPECT_LT(linear_error(W, k.V, X), 1e-14);
  EXPECT_GE(W.minCoeff(), 0.0);
  for (Index i = 0; i < 3; ++i) EXPECT_LE((W.row(i).array() > 0).count(), 3);  // one triangle's corners
  EXPECT_EQ(W(3, 0), 1.0);
  // The corners of a face that are not on x's triangle get nothing; the rest is linear.
  EXPECT_EQ(W(0, 4) + W(0, 5) + W(0, 6) + W(0, 7), 0.0);  // z = 0.5 corners
  // Approaching a face, an edge and a vertex from inside: continuous, linear precision holds.
  const Eigen::RowVector3d targets[3] = {{0.3, 0.4, 0.0}, {1.0, 1.0, 0.0}, {0.0, 0.0, 0.0}};
  const Eigen::RowVector3d inward[3] = {
      {0, 0, 1}, Eigen::RowVector3d(-1, 0, 1).normalized(), Eigen::RowVector3d(1, 1, 1).normalized()};
  for (int c = 0; c < 3; ++c) {
    const MatrixXd on = mean_value_coordinates(targets[c], k.V, k.F);
    for (double delta : {1e-3, 1e-6, 1e-9, 1e-11, 1e-13}) {
      const MatrixXd x = targets[c] + delta * inward[c];
      const MatrixXd Wx = mean_value_coordinates(x, k.V, k.F);
      // Closer than 1e-12 * diagonal (2.3e-12 here) the point snaps to the cage: error = delta.
      EXPECT_LT(linear_error(Wx, k.V, x), delta < 3e-12 ? 2 * delta : 1e-13) << "target " << c << " delta " << delta;
      EXPECT_LT((Wx - on).cwiseAbs().maxCoeff(), 1e-9 + 100 * delta) << "target " << c << " delta " << delta;
      EXPECT_GE(Wx.minCoeff(), 0.0);
    }
  }
}

TEST(MeanValueCoordinates3D, NonConvexCageWithCoplanarFaces) {
  const Cage k = l_prism();
  // Interior grid including points in the planes y = 1 (x < 1) and x = 1 (y < 1), which
  // contain faces the points lie outside of.
  std::vector<Eigen::RowVector3d> pts;
  for (int i = 1; i < 8; ++i)
    for (int j = 1; j < 8; ++j)
      for (int l = 1; l < 4; ++l) {
        const Eigen::RowVector3d p(0.25 * i, 0.25 * j, 0.25 * l);
        if (p.x() < 1 || p.y() < 1) pts.push_back(p);
      }
  MatrixXd X(static_cast<Index>(pts.size()), 3);
  for (std::size_t i = 0; i < pts.size(); ++i) X.row(static_cast<Index>(i)) = pts[i];
  const MatrixXd W = mean_value_coordinates(X, k.V, k.F);
  EXPECT_LT(partition_error(W), 1e-13);
  EXPECT_LT(linear_error(W, k.V, X), 1e-12);
  // Continuous across the coplanar planes.
  const Eigen::RowVector3d p(0.5, 1.0, 0.5);
  const MatrixXd w0 = mean_value_coordinates(p, k.V, k.F);
  for (double delta : {1e-6, 1e-9, 1e-12}) {
    const MatrixXd wp = mean_value_coordinates(p + Eigen::RowVector3d(0, delta, 0), k.V, k.F);
    const MatrixXd wm = mean_value_coordinates(p - Eigen::RowVector3d(0, delta, 0), k.V, k.F);
    EXPECT_LT((wp - w0).cwiseAbs().maxCoeff(), 1e-6) << delta;
    EXPECT_LT((wm - w0).cwiseAbs().maxCoeff(), 1e-6) << delta;
  }
  // Concave cage: some weights are negative somewhere.
  RecordProperty("l_prism_min_weight", test::sci(W.minCoeff()));
}

TEST(MeanValueCoordinates, RejectsBadInput) {
  const Cage sq = unit_square();
  const Cage k = box();
  const MatrixXd x2 = MatrixXd::Constant(2, 2, 0.5), x3 = MatrixXd::Constant(2, 3, 0.5);
  using E = std::invalid_argument;
  test::expect_throw_with<E>([&] { mean_value_coordinates(x3, sq.V, sq.F); }, "X must be #X x 2");
  test::expect_throw_with<E>([&] { mean_value_coordinates(x2, MatrixXd::Zero(4, 4), sq.F); },
                             "cage_V must be #C x 2 or #C x 3");
  test::expect_throw_with<E>([&] { mean_value_coordinates(x2, sq.V.topRows(2), sq.F); }, "at least 3 vertices, got 2");
  test::expect_throw_with<E>([&] { mean_value_coordinates(x2, sq.V, MatrixXi(sq.F.leftCols(1))); },
                             "#E x 2 polygon edges");
  test::expect_throw_with<E>([&] { mean_value_coordinates(x3, k.V, MatrixXi(k.F.leftCols(2))); }, "#F x 3 triangles");
  MatrixXi bad = sq.F;
  bad(2, 1) = 4;
  test::expect_throw_with<E>([&] { mean_value_coordinates(x2, sq.V, bad); },
                             "cage_F(2, 1) = 4 is out of range [0, 4) (row 2)");
  bad = k.F;
  bad(5, 0) = -1;
  test::expect_throw_with<E>([&] { mean_value_coordinates(x3, k.V, bad); }, "(row 5)");
  MatrixXd nan = x2;
  nan(1, 0) = std::nan("");
  test::expect_throw_with<E>([&] { mean_value_coordinates(nan, sq.V, sq.F); }, "X(1, 0) is not finite");
  MatrixXd vnan = sq.V;
  vnan(3, 1) = std::numeric_limits<double>::infinity();
  test::expect_throw_with<E>([&] { mean_value_coordinates(x2, vnan, sq.F); }, "cage_V(3, 1) is not finite");
  // Zero-length edge: a duplicated vertex.
  MatrixXd dup(5, 2);
  dup << 0, 0, 1, 0, 1, 0, 1, 1, 0, 1;
  const MatrixXi dupF = (MatrixXi(5, 2) << 0, 1, 1, 2, 2, 3, 3, 4, 4, 0).finished();
  test::expect_throw_with<E>([&] { mean_value_coordinates(x2, dup, dupF); },
                             "cage_F row 1: edge (1, 2) has zero length");
  const MatrixXi self = (MatrixXi(4, 2) << 0, 1, 1, 1, 2, 3, 3, 0).finished();
  test::expect_throw_with<E>([&] { mean_value_coordinates(x2, sq.V, self); }, "cage_F row 1 repeats vertex 1");
  // Not closed / inconsistently directed.
  const MatrixXi open = (MatrixXi(3, 2) << 0, 1, 1, 2, 2, 3).finished();
  test::expect_throw_with<E>([&] { mean_value_coordinates(x2, sq.V, open); },
                             "not a closed, consistently directed polygon");
  const MatrixXi flipped = (MatrixXi(4, 2) << 0, 1, 2, 1, 2, 3, 3, 0).finished();
  test::expect_throw_with<E>([&] { mean_value_coordinates(x2, sq.V, flipped); },
                             "vertex 1 starts 0 edge(s) but ends 2");
  test::expect_throw_with<E>([&] { mean_value_coordinates(x3, k.V, MatrixXi(k.F.topRows(11))); },
                             "has no opposite edge");
  MatrixXi flip3 = k.F;
  flip3.row(0) = flip3.row(0).reverse().eval();
  test::expect_throw_with<E>([&] { mean_value_coordinates(x3, k.V, flip3); }, "consistently oriented");
  MatrixXd flat = k.V;
  flat.row(2) = flat.row(0);
  test::expect_throw_with<E>([&] { mean_value_coordinates(x3, flat, k.F); }, "has zero length");
}

// ------------------------------------------------------------------- harmonic coordinates

TEST(HarmonicCoordinates2D, PartitionBoundsAndLinearPrecisionImproveWithResolution) {
  const Cage c = regular_polygon(7);
  const Eigen::VectorXd lo = c.V.colwise().minCoeff(), hi = c.V.colwise().maxCoeff();
  MatrixXd X = interior_grid(lo, hi, 20);
  std::vector<Index> keep;
  for (Index i = 0; i < X.rows(); ++i)
    if (inside_polygon(X.row(i), c)) keep.push_back(i);
  X = X(keep, Eigen::all).eval();
  const double size = cage_size(c.V);
  std::vector<double> errors;
  for (int res : {16, 32, 64, 128}) {
    const MatrixXd W = harmonic_coordinates(X, c.V, c.F, res);
    EXPECT_LT(partition_error(W), 1e-14);
    EXPECT_GE(W.minCoeff(), 0.0);
    EXPECT_LE(W.maxCoeff(), 1.0);
    errors.push_back(linear_error(W, c.V, X) / size);
    RecordProperty("heptagon_linear_error_res" + std::to_string(res), test::sci(errors.back()));
  }
  for (std::size_t i = 1; i < errors.size(); ++i) EXPECT_LT(errors[i], 0.75 * errors[i - 1]);
  EXPECT_LT(errors.back(), 5e-3);
}

TEST(HarmonicCoordinates2D, TriangleCageGivesBarycentricCoordinatesLikeMeanValue) {
  // On a triangle, partition of unity + linear precision leave exactly one choice: the
  // barycentric coordinates. Both methods must find them (harmonic to O(h)).
  Cage t;
  t.V.resize(3, 2);
  t.V << 0, 0, 2, 0.3, 0.6, 1.7;
  t.F.resize(3, 2);
  t.F << 0, 1, 1, 2, 2, 0;
  MatrixXd bary = interior_grid(Eigen::Vector2d(0, 0), Eigen::Vector2d(1, 1), 10);
  std::vector<Index> keep;
  for (Index i = 0; i < bary.rows(); ++i)
    if (bary.row(i).sum() < 0.95) keep.push_back(i);
  bary = bary(keep, Eigen::all).eval();
  MatrixXd B(bary.rows(), 3);
  B << 1 - bary.rowwise().sum().array(), bary;
  const MatrixXd X = B * t.V;
  EXPECT_LT((mean_value_coordinates(X, t.V, t.F) - B).cwiseAbs().maxCoeff(), 1e-14);
  const double e64 = (harmonic_coordinates(X, t.V, t.F, 64) - B).cwiseAbs().maxCoeff();
  const double e256 = (harmonic_coordinates(X, t.V, t.F, 256) - B).cwiseAbs().maxCoeff();
  EXPECT_LT(e64, 2e-2);
  EXPECT_LT(e256, 0.5 * e64);
  RecordProperty("triangle_harmonic_vs_barycentric_res64", test::sci(e64));
  RecordProperty("triangle_harmonic_vs_barycentric_res256", test::sci(e256));
}

TEST(HarmonicCoordinates2D, SquareCloseToMeanValueAndExactOnTheBoundary) {
  const Cage sq = unit_square();
  const MatrixXd X = interior_grid(Eigen::Vector2d(0, 0), Eigen::Vector2d(1, 1), 12);
  const MatrixXd H = harmonic_coordinates(X, sq.V, sq.F, 128);
  const MatrixXd M = mean_value_coordinates(X, sq.V, sq.F);
  // Different interpolants (the square's coordinates are not unique), both affine.
  EXPECT_LT(linear_error(M, sq.V, X), 1e-15);
  EXPECT_LT(linear_error(H, sq.V, X), 5e-3);
  const double diff = (H - M).cwiseAbs().maxCoeff();
  EXPECT_LT(diff, 0.05);
  RecordProperty("square_harmonic_minus_mvc_res128", test::sci(diff));
  // Symmetry: at the centre a quarter each.
  const MatrixXd centre = (MatrixXd(1, 2) << 0.5, 0.5).finished();
  EXPECT_LT((harmonic_coordinates(centre, sq.V, sq.F, 64).array() - 0.25).abs().maxCoeff(), 1e-12);
  // On the cage: the hat functions, exactly (vertices, edge points).
  const MatrixXd on = (MatrixXd(4, 2) << 1, 1, 0.25, 0, 1, 0.6, 0, 0.9).finished();
  const MatrixXd Hon = harmonic_coordinates(on, sq.V, sq.F, 32);
  MatrixXd expected = MatrixXd::Zero(4, 4);
  expected(0, 2) = 1;
  expected(1, 0) = 0.75, expected(1, 1) = 0.25;
  expected(2, 1) = 0.4, expected(2, 2) = 0.6;
  expected(3, 3) = 0.9, expected(3, 0) = 0.1;
  EXPECT_LT((Hon - expected).cwiseAbs().maxCoeff(), 1e-15);
  // Close to the cage (inside), continuous with those values.
  const MatrixXd near = (MatrixXd(1, 2) << 0.25, 1e-4).finished();
  EXPECT_LT((harmonic_coordinates(near, sq.V, sq.F, 128).row(0) - expected.row(1)).cwiseAbs().maxCoeff(), 2e-3);
}

TEST(HarmonicCoordinates2D, Walrus) {
  const Cage c = walrus_cage();
  const MatrixXd X = walrus_points();
  const double size = cage_size(c.V);
  for (int res : {64, 128, 256}) {
    const auto t0 = std::chrono::steady_clock::now();
    const MatrixXd W = harmonic_coordinates(X, c.V, c.F, res);
    const double seconds = seconds_since(t0);
    EXPECT_LT(partition_error(W), 1e-14);
    EXPECT_GE(W.minCoeff(), 0.0);
    EXPECT_LE(W.maxCoeff(), 1.0);
    const double lin = linear_error(W, c.V, X) / size;
    EXPECT_LT(lin, 2e-2);
    if (res == 128) {
      EXPECT_LT(seconds, 5.0);  // well under a second in Release; loose for Debug builds
    }
    RecordProperty("walrus_harmonic_seconds_res" + std::to_string(res), test::sci(seconds));
    RecordProperty("walrus_harmonic_linear_error_res" + std::to_string(res), test::sci(lin));
  }
}

TEST(HarmonicCoordinates3D, BoxAndOctahedron) {
  // Axis-aligned boxes and the unit octahedron have their faces on grid nodes, which makes the
  // grid solution exact for linear functions; a generic affine map exposes the O(h) error.
  Eigen::Matrix3d A;
  A = Eigen::AngleAxisd(0.5, Eigen::Vector3d(1, 2, 3).normalized()).toRotationMatrix() *
      Eigen::Vector3d(1.0, 0.8, 1.3).asDiagonal();
  for (const Cage& ref : {box(1.0, 2.0, 0.5), octahedron()}) {
    const bool is_box = ref.V.rows() == 8;
    const Eigen::VectorXd lo = ref.V.colwise().minCoeff(), hi = ref.V.colwise().maxCoeff();
    MatrixXd Xr = interior_grid(lo, hi, 6);
    if (!is_box) {
      std::vector<Index> keep;
      for (Index i = 0; i < Xr.rows(); ++i)
        if (Xr.row(i).cwiseAbs().sum() < 0.999) keep.push_back(i);
      Xr = Xr(keep, Eigen::all).eval();
    }
    const Cage k{ref.V * A.transpose(), ref.F};
    const MatrixXd X = Xr * A.transpose();
    const double size = cage_size(k.V);
    const std::string name = is_box ? "box" : "octahedron";
    // Axis-aligned: exact.
    EXPECT_LT(linear_error(harmonic_coordinates(Xr, ref.V, ref.F, 12), ref.V, Xr), 1e-14);
    std::vector<double> errors;
    for (int res : {12, 24, 36}) {
      const auto t0 = std::chrono::steady_clock::now();
      const MatrixXd W = harmonic_coordinates(X, k.V, k.F, res);
      const double seconds = seconds_since(t0);
      EXPECT_LT(partition_error(W), 1e-14);
      EXPECT_GE(W.minCoeff(), 0.0);
      EXPECT_LE(W.maxCoeff(), 1.0);
      errors.push_back(linear_error(W, k.V, X) / size);
      RecordProperty(name + "_harmonic_linear_error_res" + std::to_string(res), test::sci(errors.back()));
      RecordProperty(name + "_harmonic_seconds_res" + std::to_string(res), test::sci(seconds));
    }
    EXPECT_LT(errors[1], 0.75 * errors[0]);
    EXPECT_LT(errors[2], 0.75 * errors[1]);
    EXPECT_LT(errors[2], 2e-2);
    // On the cage: barycentric hats, exactly.
    const MatrixXd on = k.V.topRows(3);
    EXPECT_LT((harmonic_coordinates(on, k.V, k.F, 8) - MatrixXd::Identity(3, k.V.rows())).cwiseAbs().maxCoeff(), 1e-15);
    const MatrixXd face = (k.V.row(k.F(0, 0)) + k.V.row(k.F(0, 1)) * 2 + k.V.row(k.F(0, 2))) / 4;
    const MatrixXd Wf = harmonic_coordinates(face, k.V, k.F, 8);
    EXPECT_NEAR(Wf(0, k.F(0, 0)), 0.25, 1e-14);
    EXPECT_NEAR(Wf(0, k.F(0, 1)), 0.5, 1e-14);
    EXPECT_NEAR(Wf(0, k.F(0, 2)), 0.25, 1e-14);
  }
}

TEST(HarmonicCoordinates, RejectsPointsOutsideAndBadArguments) {
  const Cage sq = unit_square();
  const MatrixXd X = (MatrixXd(3, 2) << 0.5, 0.5, 0.2, 0.9, 1.5, 0.5).finished();
  test::expect_throw_with<std::invalid_argument>([&] { harmonic_coordinates(X, sq.V, sq.F, 16); },
                                                 "X row 2 (1.5 0.5) is outside the cage");
  const Cage k = octahedron();
  const MatrixXd X3 = (MatrixXd(2, 3) << 0.1, 0.1, 0.1, 0.5, 0.5, 0.5).finished();
  test::expect_throw_with<std::invalid_argument>([&] { harmonic_coordinates(X3, k.V, k.F, 8); }, "X row 1");
  test::expect_throw_with<std::invalid_argument>([&] { harmonic_coordinates(X.topRows(1), sq.V, sq.F, 3); },
                                                 "resolution must be >= 4, got 3");
  test::expect_throw_with<std::invalid_argument>([&] { harmonic_coordinates(X3, sq.V, sq.F); }, "X must be #X x 2");
}

}  // namespace test_cage_coordinates
}  // namespace fastcd
