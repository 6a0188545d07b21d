#include <Eigen/Eigenvalues>

#include "test_util.hpp"

namespace fastcd {
namespace test_dirichlet_laplacian {

class DirichletLaplacian : public ::testing::TestWithParam<int> {};

TEST_P(DirichletLaplacian, SymmetricPsdWithConstantNullSpace) {
  const Mesh m = test::mesh_for(GetParam());
  const SparseMatrix K = dirichlet_laplacian(m.X, m.T, 2.5);
  const MatrixXd Kd = K;
  EXPECT_LT(test::max_abs(Kd - Kd.transpose()), 1e-12 * test::max_abs(Kd));
  EXPECT_LT((K * VectorXd::Ones(K.cols())).cwiseAbs().maxCoeff(), 1e-12 * test::max_abs(Kd));
  const VectorXd ev = Eigen::SelfAdjointEigenSolver<MatrixXd>(Kd).eigenvalues();
  EXPECT_GT(ev(0), -1e-10 * ev(ev.size() - 1));
  EXPECT_GT(ev(1), 1e-8 * ev(ev.size() - 1));  // connected mesh: exactly one zero eigenvalue
}

TEST_P(DirichletLaplacian, EnergyOfLinearFunctionIsGradientSquaredTimesVolume) {
  const int d = GetParam();
  const Mesh m = test::mesh_for(d);
  const SparseMatrix K = dirichlet_laplacian(m.X, m.T, 1.0);
  VectorXd a = VectorXd::LinSpaced(d, 0.5, 1.5);
  const VectorXd f = m.X * a;
  EXPECT_NEAR(f.dot(K * f), a.squaredNorm() * volume(m.X, m.T).cwiseAbs().sum(), 1e-11);
}

TEST_P(DirichletLaplacian, VectorFormEqualsArapStiffness) {
  const int d = GetParam();
  const Mesh m = test::mesh_for(d);
  const ElasticOperators op = elastic_operators(m.X, m.T, 1e5, 0.0, 1e3);
  const MatrixXd Lv = dirichlet_laplacian(m.X, m.T, op.mu, true);
  EXPECT_LT(test::max_abs(Lv - MatrixXd(op.L)), 1e-10 * test::max_abs(Lv));
}

INSTANTIATE_TEST_SUITE_P(Dim, DirichletLaplacian, ::testing::Values(2, 3));

}  // namespace test_dirichlet_laplacian
}  // namespace fastcd
