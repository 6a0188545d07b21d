#include "test_util.hpp"

namespace fastcd {
namespace test_orthonormalize {

TEST(Orthonormalize, MassOrthonormalSameSpanAndTriangularFactor) {
  const Mesh m = test::mesh3d();
  const SparseMatrix M = kron_identity(massmatrix(m.X, m.T, 1e3), 3);
  const MatrixXd B = MatrixXd(lbs_jacobian(m.X, MatrixXd::Random(m.X.rows(), 2).cwiseAbs()));
  const Orthonormalization o = orthonormalize_factor(B, M);
  ASSERT_EQ(o.Q.cols(), B.cols());
  EXPECT_LT(test::max_abs(o.Q.transpose() * M * o.Q - MatrixXd::Identity(B.cols(), B.cols())), 1e-12);
  // Q = B R^{-1}: a triangular change of coordinates.
  const MatrixXd BRinv = o.R.triangularView<Eigen::Upper>().solve<Eigen::OnTheRight>(B);
  EXPECT_LT(test::max_abs(BRinv - o.Q), 1e-10);
}

TEST(Orthonormalize, HouseholderSignConventionAndZeroColumnDropped) {
  MatrixXd B(2, 2);
  B << 3, 0, 4, 0;
  const MatrixXd Q = orthonormalize(B);
  ASSERT_EQ(Q.cols(), 1);  // the all-zero column has a zero R row and is dropped
  EXPECT_NEAR(Q(0, 0), -0.6, 1e-15);
  EXPECT_NEAR(Q(1, 0), -0.8, 1e-15);
}

TEST(Orthonormalize, RejectsNonDiagonalMass) {
  SparseMatrix M(2, 2);
  M.insert(0, 0) = 1;
  M.insert(1, 1) = 1;
  M.insert(0, 1) = 0.5;
  test::expect_throw_with<std::invalid_argument>([&] { orthonormalize(MatrixXd::Identity(2, 2), M); },
                                                 "M must be diagonal");
  test::expect_throw_with<std::invalid_argument>([&] { orthonormalize(MatrixXd::Identity(3, 2), M); }, "B has 3 rows");
}

}  // namespace test_orthonormalize
}  // namespace fastcd

namespace fastcd {
namespace test_orthonormalize {

TEST(Orthonormalize, DependentColumnsAreDroppedNotTurnedIntoNoise) {
  // Column 2 = column 0 + column 1 (up to rounding): simkit's row-sum test would keep a noise
  // direction; the rank test drops it and the span stays exactly span(B).
  MatrixXd B = MatrixXd::Random(30, 4);
  B.col(2) = B.col(0) + B.col(1);
  const MatrixXd Q = orthonormalize(B);
  ASSERT_EQ(Q.cols(), 3);
  const MatrixXd P = Q * Q.transpose();  // projector onto span(Q)
  EXPECT_LT(test::max_abs(P * B - B), 1e-12);
  EXPECT_LT(test::max_abs(Q.transpose() * Q - MatrixXd::Identity(3, 3)), 1e-13);
}

}  // namespace test_orthonormalize
}  // namespace fastcd
