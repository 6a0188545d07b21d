#include <random>

#include "test_util.hpp"

namespace fastcd {
namespace test_embed_points {

class EmbedPoints : public ::testing::TestWithParam<int> {};

TEST_P(EmbedPoints, InsidePointsAreReproducedAndFollowAffineMotion) {
  const int d = GetParam();
  const Mesh m = test::mesh_for(d);
  std::mt19937 gen(5);
  // Points inside: random convex combinations of random elements' corners.
  MatrixXd P(40, d);
  std::uniform_real_distribution<double> U(0.05, 1.0);
  for (Index i = 0; i < P.rows(); ++i) {
    const Index e = (i * 7) % m.T.rows();
    VectorXd w(d + 1);
    for (int a = 0; a <= d; ++a) w(a) = U(gen);
    w /= w.sum();
    P.row(i).setZero();
    for (int a = 0; a <= d; ++a) P.row(i) += w(a) * m.X.row(m.T(e, a));
  }
  const Embedding emb = embed_points(m.X, m.T, P);
  EXPECT_LT(test::max_abs(emb.E * m.X - P), 1e-12);
  EXPECT_LT(emb.distance.maxCoeff(), 1e-12);
  EXPECT_LT((emb.E * VectorXd::Ones(m.X.rows()) - VectorXd::Ones(P.rows())).cwiseAbs().maxCoeff(), 1e-14);
  // Linear precision: an affine motion of the mesh moves the points the same way.
  MatrixXd A = MatrixXd::Identity(d, d);
  A(0, d - 1) = 0.4;
  const MatrixXd Y = m.X * A.transpose();
  EXPECT_LT(test::max_abs(emb.E * Y - P * A.transpose()), 1e-12);
}

TEST_P(EmbedPoints, OutsidePointsKeepTheirPositionInTheNearestElement) {
  const int d = GetParam();
  const Mesh m = test::mesh_for(d);
  MatrixXd P = MatrixXd::Zero(1, d);
  P(0, 0) = -0.5;  // left of the mesh
  const Embedding emb = embed_points(m.X, m.T, P);
  EXPECT_GT(emb.distance(0), 0.0);
  // Never snapped: the extrapolated barycentric coordinates reproduce the point exactly.
  const Eigen::RowVectorXd y = emb.E.row(0) * m.X;
  EXPECT_LT((y - P.row(0)).norm(), 1e-12);
  EXPECT_NEAR(emb.E.row(0).sum(), 1.0, 1e-12);
  // No vertex of the mesh is closer to P than the reported element by more than rounding.
  double nearest_vertex = 1e300;
  for (Index v = 0; v < m.X.rows(); ++v) nearest_vertex = std::min(nearest_vertex, (m.X.row(v) - P.row(0)).norm());
  EXPECT_LE(emb.distance(0), nearest_vertex + 1e-12);
  test::expect_throw_with<std::invalid_argument>([&] { embed_points(m.X, m.T, MatrixXd::Zero(2, d + 1)); },
                                                 "points must be");
}

TEST_P(EmbedPoints, RingSearchFindsTheNearestElementOfABruteForceSearch) {
  const int d = GetParam();
  const Mesh m = test::mesh_for(d);
  // Points inside, on the box, just outside and far away, in every direction.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.5, 2.5);
  MatrixXd P(200, d);
  for (Index i = 0; i < P.rows(); ++i)
    for (int k = 0; k < d; ++k) P(i, k) = u(rng) * (i % 4 == 0 ? 10.0 : 1.0);
  const Embedding emb = embed_points(m.X, m.T, P);
  EXPECT_LT(test::max_abs(emb.E * m.X - P), 1e-9);  // every point reproduced
  // The reported distance is the distance to the nearest element over all of them.
  for (Index i = 0; i < P.rows(); ++i) {
    double brute = 1e300;
    for (Index e = 0; e < m.T.rows(); ++e) {
      const Embedding one = embed_points(m.X, m.T.row(e), P.row(i));
      brute = std::min(brute, one.distance(0));
    }
    EXPECT_NEAR(emb.distance(i), brute, 1e-12) << "point " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Dim, EmbedPoints, ::testing::Values(2, 3));

}  // namespace test_embed_points
}  // namespace fastcd
