#include "test_util.hpp"

namespace fastcd {
namespace test_deformation_jacobian {

class DeformationJacobian : public ::testing::TestWithParam<int> {};

TEST_P(DeformationJacobian, ReproducesAffineMapsExactly) {
  const int d = GetParam();
  const Mesh m = test::mesh_for(d);
  const SparseMatrix G = deformation_jacobian(m.X, m.T);
  EXPECT_EQ(G.rows(), m.T.rows() * d * d);
  EXPECT_EQ(G.cols(), m.X.rows() * d);
  EXPECT_LE(G.nonZeros(), m.T.rows() * (d + 1) * d * d);
  std::mt19937 gen(3);
  std::normal_distribution<double> N;
  const MatrixXd A = MatrixXd::NullaryExpr(d, d, [&] { return N(gen); });
  const Eigen::RowVectorXd b = Eigen::RowVectorXd::NullaryExpr(d, [&] { return N(gen); });
  const MatrixXd Y = (m.X * A.transpose()).rowwise() + b;
  const VectorXd F = G * test::flat(Y);
  for (Index e = 0; e < m.T.rows(); ++e)
    for (int i = 0; i < d; ++i)
      for (int j = 0; j < d; ++j) EXPECT_NEAR(F(e * d * d + i * d + j), A(i, j), 1e-12);  // row-major F
  // Translations alone give F = 0.
  const VectorXd F0 = G * test::flat(MatrixXd(MatrixXd::Zero(m.X.rows(), d).rowwise() + b));
  EXPECT_LT(F0.cwiseAbs().maxCoeff(), 1e-12);
}

TEST_P(DeformationJacobian, DegenerateElementIsNamed) {
  Mesh m = test::mesh_for(GetParam());
  // Collapse element 5 onto a line/plane by moving one corner onto another.
  m.X.row(m.T(5, 1)) = m.X.row(m.T(5, 0));
  test::expect_throw_with<std::invalid_argument>([&] { deformation_jacobian(m.X, m.T); }, "is degenerate");
}

INSTANTIATE_TEST_SUITE_P(Dim, DeformationJacobian, ::testing::Values(2, 3));

TEST(DeformationJacobian, RejectsBadInput) {
  const Mesh m = test::mesh2d();
  MatrixXi T = m.T;
  T(3, 2) = 1000;
  test::expect_throw_with<std::invalid_argument>([&] { deformation_jacobian(m.X, T); }, "T(3, 2) = 1000");
  T(3, 2) = -1;
  test::expect_throw_with<std::invalid_argument>([&] { deformation_jacobian(m.X, T); }, "T(3, 2) = -1");
  MatrixXd X4 = MatrixXd::Random(5, 4);
  MatrixXi T5 = MatrixXi::Zero(1, 5);
  test::expect_throw_with<std::invalid_argument>([&] { deformation_jacobian(X4, T5); },
                                                 "dimension must be 2 or 3, got 4");
  test::expect_throw_with<std::invalid_argument>([&] { deformation_jacobian(m.X, MatrixXi(m.T.leftCols(2))); },
                                                 "T must be #T x 3");
}

TEST(DeformationJacobian, BeamShape) {
  const Mesh b = beam();
  const SparseMatrix G = deformation_jacobian(b.X, b.T);
  EXPECT_EQ(G.rows(), 1248);
  EXPECT_EQ(G.cols(), 400);
  EXPECT_EQ(G.nonZeros(), 2496);  // exact zeros of the axis-aligned grid are not stored (as simkit)
}

}  // namespace test_deformation_jacobian
}  // namespace fastcd
