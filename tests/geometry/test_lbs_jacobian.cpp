#include "test_util.hpp"

namespace fastcd {
namespace test_lbs_jacobian {

class LbsJacobian : public ::testing::TestWithParam<int> {};

TEST_P(LbsJacobian, MatchesTheLbsFormulaForRandomAffineBones) {
  const int d = GetParam();
  const Mesh m = test::mesh_for(d);
  const Index n = m.X.rows(), nb = 3;
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  MatrixXd W = MatrixXd::NullaryExpr(n, nb, [&] { return U(gen); });
  W.col(1).head(n / 2).setZero();  // sparse weights are skipped
  const SparseMatrix J = lbs_jacobian(m.X, W);
  ASSERT_EQ(J.rows(), n * d);
  ASSERT_EQ(J.cols(), nb * d * (d + 1));
  EXPECT_LE(J.nonZeros(), n * d * nb * (d + 1));
  std::vector<MatrixXd> A(nb);
  VectorXd p(nb * d * (d + 1));
  for (Index b = 0; b < nb; ++b) {
    A[b] = MatrixXd::NullaryExpr(d, d + 1, [&] { return U(gen) - 0.5; });
    p.segment(b * d * (d + 1), d * (d + 1)) = A[b].reshaped();  // column-major vec([L | t])
  }
  const VectorXd x = J * p;
  for (Index v = 0; v < n; ++v) {
    VectorXd xv = VectorXd::Zero(d);
    VectorXd h(d + 1);
    h << m.X.row(v).transpose(), 1.0;
    for (Index b = 0; b < nb; ++b) xv += W(v, b) * A[b] * h;
    EXPECT_LT((x.segment(v * d, d) - xv).norm(), 1e-13);
  }
}

TEST_P(LbsJacobian, IdentityPoseReproducesRestShape) {
  const int d = GetParam();
  const Mesh m = test::mesh_for(d);
  const SparseMatrix J = lbs_jacobian(m.X, MatrixXd::Ones(m.X.rows(), 1));
  VectorXd p = VectorXd::Zero(d * (d + 1));
  for (int i = 0; i < d; ++i) p(i * d + i) = 1.0;
  EXPECT_LT((J * p - test::flat(m.X)).cwiseAbs().maxCoeff(), 1e-15);
}

INSTANTIATE_TEST_SUITE_P(Dim, LbsJacobian, ::testing::Values(2, 3));

TEST(LbsJacobian, RejectsMismatchedWeights) {
  const Mesh m = test::mesh2d();
  test::expect_throw_with<std::invalid_argument>([&] { lbs_jacobian(m.X, MatrixXd::Ones(3, 1)); }, "W is 3 x 1");
}

TEST(LbsJacobian, SingleHandleBeamShape) {
  const Mesh b = beam();
  const SparseMatrix J = lbs_jacobian(b.X, MatrixXd::Ones(200, 1));
  EXPECT_EQ(J.rows(), 400);
  EXPECT_EQ(J.cols(), 6);
  EXPECT_EQ(J.nonZeros(), 1200);  // 3 per row, a third of the dense 2400
}

}  // namespace test_lbs_jacobian
}  // namespace fastcd
