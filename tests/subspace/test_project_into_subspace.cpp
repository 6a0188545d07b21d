#include "test_util.hpp"

namespace fastcd {
namespace test_project_into_subspace {

TEST(ProjectIntoSubspace, RecoversCoordinatesAndRestPose) {
  const Mesh b = beam();
  const SparseMatrix J = lbs_jacobian(b.X, MatrixXd::Ones(b.X.rows(), 1));
  const SparseMatrix Mv = kron_identity(massmatrix(b.X, b.T, 1e3), 2);
  const VectorXd p0 = project_into_subspace(test::flat(b.X), J, Mv);
  VectorXd id(6);
  id << 1, 0, 0, 1, 0, 0;
  EXPECT_LT((p0 - id).cwiseAbs().maxCoeff(), 1e-13);
  // Dense path, with and without M, on random coordinates.
  const MatrixXd Jd = J;
  VectorXd z(6);
  z << 0.3, -1, 2, 0.5, 4, -2;
  EXPECT_LT((project_into_subspace(Jd * z, Jd) - z).norm(), 1e-12);
  EXPECT_LT((project_into_subspace(Jd * z, Jd, Mv) - z).norm(), 1e-12);
}

TEST(ProjectIntoSubspace, SingularBasisIsReported) {
  MatrixXd B(4, 2);
  B << 1, 2, 1, 2, 0, 0, 1, 2;  // second column = 2 x first
  test::expect_throw_with<std::runtime_error>([&] { project_into_subspace(VectorXd::Ones(4), B); }, "rank-deficient");
  test::expect_throw_with<std::invalid_argument>([&] { project_into_subspace(VectorXd::Ones(3), B); },
                                                 "y has 3 entries");
}

}  // namespace test_project_into_subspace
}  // namespace fastcd
