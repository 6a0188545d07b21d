#include <Eigen/Eigenvalues>

#include "test_util.hpp"

namespace fastcd {
namespace test_elastic_operators {

class ElasticOps : public ::testing::TestWithParam<int> {};

TEST_P(ElasticOps, ArapOperatorsAreConsistent) {
  const int d = GetParam();
  const Mesh m = test::mesh_for(d);
  const ElasticOperators op = elastic_operators(m.X, m.T, 1e5, 0.25, 1e3);
  EXPECT_DOUBLE_EQ(op.mu, 1e5 / 2.5);
  EXPECT_NEAR(op.Mv.sum(), d * 1e3 * op.vol.sum(), 1e-9);
  const MatrixXd L = op.L;
  EXPECT_LT(test::max_abs(L - L.transpose()), 1e-12 * test::max_abs(L));
  const VectorXd ev = Eigen::SelfAdjointEigenSolver<MatrixXd>(L).eigenvalues();
  EXPECT_GT(ev(0), -1e-9 * ev(ev.size() - 1));
  // Rigid translations cost nothing; the ARAP energy with R = I of an affine map x = A X is
  // sum_e mu vol_e / 2 ||A - I||^2.
  MatrixXd A = MatrixXd::Identity(d, d);
  A(0, d - 1) = 0.3;
  const VectorXd x = test::flat(m.X * A.transpose());
  VectorXd r(m.T.rows() * d * d);
  for (Index e = 0; e < m.T.rows(); ++e) r.segment(e * d * d, d * d) = MatrixXd::Identity(d, d).reshaped();
  const VectorXd Fx = op.G * x - r;
  const double E = 0.5 * Fx.dot(op.AMue * Fx);
  EXPECT_NEAR(E, 0.5 * op.mu * op.vol.sum() * 0.09, 1e-9 * E);
  EXPECT_LT((op.L * test::flat(MatrixXd::Ones(m.X.rows(), d))).norm(), 1e-8);
}

INSTANTIATE_TEST_SUITE_P(Dim, ElasticOps, ::testing::Values(2, 3));

TEST(ElasticOps, RejectsBadMaterial) {
  const Mesh m = test::mesh2d();
  test::expect_throw_with<std::invalid_argument>([&] { elastic_operators(m.X, m.T, -1.0); }, "Young's modulus");
  test::expect_throw_with<std::invalid_argument>([&] { elastic_operators(m.X, m.T, 1e5, 0.5); }, "Poisson ratio");
  test::expect_throw_with<std::invalid_argument>([&] { elastic_operators(m.X, m.T, 1e5, 0.0, 0.0); }, "density");
}

}  // namespace test_elastic_operators
}  // namespace fastcd
