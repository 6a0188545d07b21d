// harmonic_extension: linear reproduction, partition of unity, clamping, singular parts.
#include "fastcd/geometry/harmonic_weights.hpp"

#include "fastcd/geometry/embed_points.hpp"

#include <gtest/gtest.h>

#include "fastcd/geometry/boundary_facets.hpp"
#include "fastcd/geometry/triangulated_grid.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_harmonic_weights {

TEST(HarmonicExtension, ReproducesLinearFieldsAndPartitionOfUnity) {
  // P1 elements reproduce affine functions exactly: boundary values (x, y, 1 - x - y + z, ...)
  // extend to the same affine functions inside.
  const Mesh m = tetrahedralized_grid(5, 4, 6);
  const VectorXi b = boundary_vertices(m.T);
  MatrixXd Wb(b.size(), 3);
  for (Index i = 0; i < b.size(); ++i) {
    const Eigen::RowVector3d p = m.X.row(b[i]);
    Wb.row(i) << (1 + p.x()) / 6, (1 + p.y() + p.z()) / 6, (4 - p.x() - p.y() - p.z()) / 6;
  }
  ASSERT_GE(Wb.minCoeff(), 0);
  const HarmonicExtension h = harmonic_extension(m.X, m.T, b, Wb);
  ASSERT_EQ(h.W.rows(), m.X.rows());
  EXPECT_EQ(h.clamped, 0);
  for (Index v = 0; v < m.X.rows(); ++v) {
    const Eigen::RowVector3d p = m.X.row(v);
    const Eigen::RowVector3d want((1 + p.x()) / 6, (1 + p.y() + p.z()) / 6, (4 - p.x() - p.y() - p.z()) / 6);
    EXPECT_LT((h.W.row(v) - want).cwiseAbs().maxCoeff(), 1e-13) << "vertex " << v;
  }
  EXPECT_LT((h.W.rowwise().sum().array() - 1).abs().maxCoeff(), 1e-14);
  for (Index i = 0; i < b.size(); ++i) EXPECT_EQ(h.W.row(b[i]), Wb.row(i)) << "given rows are kept exactly";
}

TEST(HarmonicExtension, ClampsNegativesAndRenormalises) {
  // Two "bones" given as 0/1 on a few scattered vertices: the extension stays within [0, 1]
  // and every row sums to 1.
  const Mesh m = tetrahedralized_grid(6, 6, 6);
  VectorXi known(4);
  known << 0, 5, 210, 215;
  MatrixXd Wk(4, 2);
  Wk << 1, 0, 1, 0, 0, 1, 0, 1;
  const HarmonicExtension h = harmonic_extension(m.X, m.T, known, Wk);
  EXPECT_GE(h.W.minCoeff(), 0);
  EXPECT_LE(h.W.maxCoeff(), 1 + 1e-15);
  EXPECT_LT((h.W.rowwise().sum().array() - 1).abs().maxCoeff(), 1e-14);
  EXPECT_LE(h.most_negative, 0);
}

TEST(HarmonicExtension, RefusesBadInputAndUntouchedParts) {
  const Mesh m = tetrahedralized_grid(3, 3, 3);
  VectorXi known(2);
  known << 0, 26;
  MatrixXd Wk(2, 2);
  Wk << 1, 0, 0, 1;
  test::expect_throw_with<std::invalid_argument>([&] { harmonic_extension(m.X, m.T, known, MatrixXd(Wk.topRows(1))); },
                                                 "W_known has 1 rows for 2");
  MatrixXd neg = Wk;
  neg(0, 1) = -0.5;
  test::expect_throw_with<std::invalid_argument>([&] { harmonic_extension(m.X, m.T, known, neg); }, "negative");
  VectorXi twice(2);
  twice << 3, 3;
  test::expect_throw_with<std::invalid_argument>([&] { harmonic_extension(m.X, m.T, twice, Wk); }, "listed twice");
  // A second, separate box that touches no known vertex.
  Mesh two;
  two.X.resize(2 * m.X.rows(), 3);
  two.X << m.X, (m.X.array() + 5).matrix();
  two.T.resize(2 * m.T.rows(), 4);
  two.T << m.T, (m.T.array() + static_cast<int>(m.X.rows())).matrix();
  test::expect_throw_with<std::runtime_error>([&] { harmonic_extension(two.X, two.T, known, Wk); },
                                              "part of the mesh touches no vertex with given weights");
}

// Weights known at embedded points: constants are kept exactly (partition of unity), the fit
// of a smooth field tightens as `fit` grows, weights stay in [0, 1]; bad input is refused.
TEST(HarmonicFit, KeepsConstantsAndFollowsTheDataAsFitGrows) {
  const Mesh m = tetrahedralized_grid(5, 4, 6);
  const MatrixXd P = (MatrixXd::Random(300, 3).array() * 0.45 + 0.5).matrix();
  const Embedding e = embed_points(m.X, m.T, P);
  MatrixXd Wp(P.rows(), 3);
  for (Index i = 0; i < P.rows(); ++i) {
    const Eigen::RowVector3d p = P.row(i);
    Wp.row(i) << (1 + p.x()) / 6, (1 + p.y() + p.z()) / 6, (4 - p.x() - p.y() - p.z()) / 6;
  }
  double previous = 1;
  for (double fit : {1.0, 1e2, 1e4}) {
    const HarmonicExtension h = harmonic_fit(m.X, m.T, e.E, Wp, fit);
    EXPECT_LT((h.W.rowwise().sum().array() - 1).abs().maxCoeff(), 1e-14);
    EXPECT_GE(h.W.minCoeff(), 0.0);
    EXPECT_LE(h.fit_error, previous) << "fit " << fit;
    previous = h.fit_error;
  }
  EXPECT_LT(previous, 1e-3);
  const HarmonicExtension c = harmonic_fit(m.X, m.T, e.E, MatrixXd::Constant(P.rows(), 1, 1.0));
  EXPECT_LT((c.W.array() - 1).abs().maxCoeff(), 1e-12);
  EXPECT_LT(c.fit_error, 1e-12);
  test::expect_throw_with<std::invalid_argument>([&] { harmonic_fit(m.X, m.T, e.E, Wp.topRows(3)); }, "points");
  MatrixXd neg = Wp;
  neg(0, 0) = -1;
  test::expect_throw_with<std::invalid_argument>([&] { harmonic_fit(m.X, m.T, e.E, neg); }, "negative");
  test::expect_throw_with<std::invalid_argument>([&] { harmonic_fit(m.X, m.T, e.E, Wp, 0.0); }, "fit must be > 0");
}

}  // namespace test_harmonic_weights
}  // namespace fastcd
