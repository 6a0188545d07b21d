#include "test_util.hpp"

namespace fastcd {
namespace test_massmatrix {

class MassMatrix : public ::testing::TestWithParam<int> {};

TEST_P(MassMatrix, TotalMassIsDensityTimesVolumeAndDiagonalPositive) {
  const Mesh m = test::mesh_for(GetParam());
  const SparseMatrix M = massmatrix(m.X, m.T, 7.5);
  const double vol = volume(m.X, m.T).cwiseAbs().sum();
  EXPECT_NEAR(M.sum(), 7.5 * vol, 1e-12 * vol);
  EXPECT_EQ(M.nonZeros(), m.X.rows());
  EXPECT_GT(VectorXd(M.diagonal()).minCoeff(), 0.0);
}

TEST_P(MassMatrix, PerElementDensityAndKron) {
  const Mesh m = test::mesh_for(GetParam());
  const VectorXd rho = VectorXd::LinSpaced(m.T.rows(), 1.0, 3.0);
  const SparseMatrix M = massmatrix(m.X, m.T, rho);
  EXPECT_NEAR(M.sum(), rho.dot(volume(m.X, m.T).cwiseAbs()), 1e-12);
  const SparseMatrix Mv = kron_identity(M, GetParam());
  EXPECT_EQ(Mv.rows(), m.X.rows() * GetParam());
  for (Index v = 0; v < m.X.rows(); ++v)
    for (int r = 0; r < GetParam(); ++r) EXPECT_EQ(Mv.coeff(v * GetParam() + r, v * GetParam() + r), M.coeff(v, v));
}

TEST_P(MassMatrix, RejectsBadDensity) {
  const Mesh m = test::mesh_for(GetParam());
  test::expect_throw_with<std::invalid_argument>([&] { massmatrix(m.X, m.T, -1.0); }, "rho = -1");
  test::expect_throw_with<std::invalid_argument>([&] { massmatrix(m.X, m.T, VectorXd::Ones(3)); }, "got 3");
}

INSTANTIATE_TEST_SUITE_P(Dim, MassMatrix, ::testing::Values(2, 3));

TEST(MassMatrix, BeamReferenceValues) {
  // simkit-spec: a corner vertex (one triangle) 0.42735, a vertex in three triangles 1.28205,
  // total 400 at rho = 1e3; interior vertices (six triangles) carry 2.5641.
  const Mesh b = beam();
  const VectorXd m = massmatrix(b.X, b.T, 1e3).diagonal();
  EXPECT_NEAR(m.sum(), 400.0, 1e-10);
  EXPECT_NEAR(m.minCoeff(), 0.42735, 1e-5);
  EXPECT_NEAR(m.maxCoeff(), 2.5641, 1e-4);
  EXPECT_TRUE(((m.array() - 1.28205).abs() < 1e-5).any());
}

}  // namespace test_massmatrix
}  // namespace fastcd

namespace fastcd {
namespace test_massmatrix {

TEST(KronIdentity, FactorInvertsTheLiftAndRefusesOtherForms) {
  SparseMatrix A(3, 4);
  A.insert(0, 1) = 2.0;
  A.insert(2, 3) = -1.5;
  A.insert(1, 0) = 0.25;
  A.makeCompressed();
  for (Index k : {1, 2, 3}) {
    const std::optional<SparseMatrix> f = kron_identity_factor(kron_identity(A, k), k);
    ASSERT_TRUE(f.has_value()) << k;
    EXPECT_EQ(MatrixXd(*f), MatrixXd(A)) << k;
  }
  SparseMatrix K = kron_identity(A, 3);
  K.coeffRef(1, 4) *= 1.0 + 1e-12;  // one coordinate differs: not kron(A_s, I)
  EXPECT_FALSE(kron_identity_factor(K, 3).has_value());
  SparseMatrix L = kron_identity(A, 3);
  L.coeffRef(0, 4) = 1.0;  // couples coordinates 0 and 1
  EXPECT_FALSE(kron_identity_factor(L, 3).has_value());
  EXPECT_FALSE(kron_identity_factor(SparseMatrix(6, 7), 3).has_value());  // columns not a multiple
}

}  // namespace test_massmatrix
}  // namespace fastcd
