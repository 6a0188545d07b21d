#include "test_util.hpp"

namespace fastcd {
namespace test_skinning_eigenmodes {

struct Problem {
  Mesh m;
  SparseMatrix Ms, L;
  MatrixXd Aeq;
};

Problem constrained_problem(int d) {
  Problem p{test::mesh_for(d), {}, {}, {}};
  if (d == 3) p.m = tetrahedralized_grid(7, 4, 4);  // large enough for the Lanczos path
  p.Ms = massmatrix(p.m.X, p.m.T);
  p.L = dirichlet_laplacian(p.m.X, p.m.T);
  const SparseMatrix J = lbs_jacobian(p.m.X, MatrixXd::Ones(p.m.X.rows(), 1));
  const SparseMatrix C = SparseMatrix(J.transpose() * kron_identity(p.Ms, d));
  p.Aeq = lbs_weight_space_constraint(p.m.X, p.m.T, C);
  return p;
}

class SkinningEigenmodesTest : public ::testing::TestWithParam<int> {};

TEST_P(SkinningEigenmodesTest, ConstrainedModesAreMOrthonormalEigenpairs) {
  const int d = GetParam();
  const Problem p = constrained_problem(d);
  const int k = 6;
  const SkinningEigenmodes r = skinning_eigenmodes(p.m.X, p.m.T, k, 1.0, std::nullopt, p.Aeq);
  ASSERT_EQ(r.W.rows(), p.m.X.rows());
  ASSERT_EQ(r.W.cols(), k);
  EXPECT_LT(test::max_abs(r.W.transpose() * p.Ms * r.W - MatrixXd::Identity(k, k)), 1e-10);
  EXPECT_LT(test::max_abs(p.Aeq * r.W), 1e-10);
  for (int j = 1; j < k; ++j) EXPECT_LE(r.E(j - 1), r.E(j));
  EXPECT_GT(r.E(0), 0.0);
  // Constrained eigen-residual: L w - E M w lies in the row space of Aeq.
  for (int j = 0; j < k; ++j) {
    const VectorXd res = p.L * r.W.col(j) - r.E(j) * (p.Ms * r.W.col(j));
    const VectorXd off = res - p.Aeq.transpose() * (p.Aeq * res);
    EXPECT_LT(off.norm(), 1e-8 * r.E(j) * std::sqrt(double(p.m.X.rows()))) << "mode " << j;
  }
  EXPECT_EQ(r.B.rows(), p.m.X.rows() * d);
  EXPECT_EQ(r.B.cols(), k * d * (d + 1));
}

TEST_P(SkinningEigenmodesTest, LanczosMatchesDenseNullSpaceSolve) {
  // Asking for many modes on a small mesh takes the dense path; the first modes must agree.
  const int d = GetParam();
  const Problem p = constrained_problem(d);
  const SkinningEigenmodes few = skinning_eigenmodes(p.m.X, p.m.T, 4, 1.0, std::nullopt, p.Aeq);
  const int many = static_cast<int>(p.m.X.rows() - p.Aeq.rows()) - 2;
  const SkinningEigenmodes all = skinning_eigenmodes(p.m.X, p.m.T, many, 1.0, std::nullopt, p.Aeq);
  for (int j = 0; j < 4; ++j) EXPECT_NEAR(few.E(j), all.E(j), 1e-9 * all.E(j));
}

TEST_P(SkinningEigenmodesTest, FixedVerticesAndUnconstrained) {
  const int d = GetParam();
  const Problem p = constrained_problem(d);
  const VectorXi bI = boundary_vertices(p.m.T).head(4);
  const SkinningEigenmodes r = skinning_eigenmodes(p.m.X, p.m.T, 3, 2.0, bI);
  for (Index i = 0; i < bI.size(); ++i) EXPECT_EQ(r.W.row(bI(i)).norm(), 0.0);
  EXPECT_LT(test::max_abs(r.W.transpose() * p.Ms * r.W - MatrixXd::Identity(3, 3)), 1e-10);
  const SkinningEigenmodes u = skinning_eigenmodes(p.m.X, p.m.T, 3);
  EXPECT_NEAR(u.E(0), 0.0, 1e-8);  // constant mode
  EXPECT_GT(u.E(1), 1e-3);
}

INSTANTIATE_TEST_SUITE_P(Dim, SkinningEigenmodesTest, ::testing::Values(2, 3));

TEST(SkinningEigenmodes, RejectsTooManyModesAndBadShapes) {
  const Problem p = constrained_problem(2);
  test::expect_throw_with<std::invalid_argument>(
      [&] { skinning_eigenmodes(p.m.X, p.m.T, 1000, 1.0, std::nullopt, p.Aeq); }, "modes requested, but only");
  test::expect_throw_with<std::invalid_argument>([&] { skinning_eigenmodes(p.m.X, p.m.T, 0); }, "k = 0");
  test::expect_throw_with<std::invalid_argument>(
      [&] { skinning_eigenmodes(p.m.X, p.m.T, 2, 1.0, std::nullopt, MatrixXd::Ones(2, 3)); }, "Aeq must be");
}

}  // namespace test_skinning_eigenmodes
}  // namespace fastcd
