#include "fastcd/common/dense_decompositions.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_lbs_weight_space_constraint {

/// C = J^T M (the rig-orthogonality without leak) for one affine handle.
SparseMatrix rig_constraint(const Mesh& m) {
  const SparseMatrix J = lbs_jacobian(m.X, MatrixXd::Ones(m.X.rows(), 1));
  const SparseMatrix M = kron_identity(massmatrix(m.X, m.T, 1.0), m.X.cols());
  return SparseMatrix(J.transpose() * M);
}

class WeightSpaceConstraint : public ::testing::TestWithParam<int> {};

TEST_P(WeightSpaceConstraint, NullSpaceWeightsGiveRigOrthogonalLbsDisplacements) {
  const int d = GetParam();
  const Mesh m = test::mesh_for(d);
  const SparseMatrix C = rig_constraint(m);
  const MatrixXd A = lbs_weight_space_constraint(m.X, m.T, C);
  // An affine rig has d(d+1) parameters; the weight-space constraint has rank (d+1)(d+2)/2...
  // whatever it is, its rows must be orthonormal and C (LBS of any null weights) = 0.
  EXPECT_LT(test::max_abs(A * A.transpose() - MatrixXd::Identity(A.rows(), A.rows())), 1e-12);
  Eigen::JacobiSVD<MatrixXd> svd(A, Eigen::ComputeFullV);
  const MatrixXd N = svd.matrixV().rightCols(m.X.rows() - A.rows());  // null space of A
  const MatrixXd W = N.leftCols(3);
  const SparseMatrix B = lbs_jacobian(m.X, W);
  const MatrixXd CB = C * B;
  EXPECT_LT(test::max_abs(CB), 1e-12 * MatrixXd(C).norm() * MatrixXd(B).norm());
  // And the constraint is not vacuous: weights outside the null space violate it.
  const SparseMatrix B1 = lbs_jacobian(m.X, MatrixXd(A.row(0).transpose()));
  EXPECT_GT(test::max_abs(MatrixXd(C * B1)), 1e-6);
}

INSTANTIATE_TEST_SUITE_P(Dim, WeightSpaceConstraint, ::testing::Values(2, 3));

TEST(WeightSpaceConstraint, RedundantRowsDoNotChangeTheRank) {
  const Mesh m = test::mesh2d();
  const MatrixXd C = rig_constraint(m);
  MatrixXd C2(2 * C.rows(), C.cols());
  C2 << C, 2.0 * C;  // every row twice
  const MatrixXd A1 = lbs_weight_space_constraint(m.X, m.T, C);
  const MatrixXd A2 = lbs_weight_space_constraint(m.X, m.T, C2);
  EXPECT_EQ(A1.rows(), A2.rows());
  // Same row space: projecting one onto the other loses nothing.
  EXPECT_LT(test::max_abs(A2 - A2 * A1.transpose() * A1), 1e-10);
  EXPECT_EQ(lbs_weight_space_constraint(m.X, m.T, MatrixXd(MatrixXd::Zero(3, C.cols()))).rows(), 0);
  test::expect_throw_with<std::invalid_argument>(
      [&] { lbs_weight_space_constraint(m.X, m.T, MatrixXd(MatrixXd::Zero(3, 5))); }, "columns");
}

// Tall and wide inputs (the QR-then-SVD path and the direct SVD) give an orthonormal basis of
// the row space with the numerical rank, ignoring directions below rtol.
TEST(WeightSpaceConstraint, RowSpaceBasisOfTallAndWideMatrices) {
  for (Index nv : {30, 400}) {  // A is 60 x nv: Bm = A^T is wide for 30, tall for 400
    const MatrixXd L = MatrixXd::Random(60, 7), Rm = MatrixXd::Random(7, nv);
    MatrixXd A = L * Rm;                                   // rank 7
    A += 1e-14 * MatrixXd::Random(60, nv);                 // noise below rtol
    const VectorXd m = VectorXd::LinSpaced(nv, 0.5, 2.0);  // M-weighted
    const MatrixXd Q = row_space_basis(A, m, 1e-9);
    ASSERT_EQ(Q.rows(), 7) << nv;
    EXPECT_LT(test::max_abs(Q * Q.transpose() - MatrixXd::Identity(7, 7)), 1e-12) << nv;
    // Every row of A lies in span(Q), and Q lies in span(A^T).
    EXPECT_LT(test::max_abs(A - A * Q.transpose() * Q), 1e-10 * test::max_abs(A)) << nv;
    EXPECT_LT(test::max_abs(Rm - Rm * Q.transpose() * Q), 1e-10 * test::max_abs(Rm)) << nv;
  }
}

// Zero rows and exact copies (an LBS constraint's usual redundancy, dropped before the QR)
// change neither the rank nor the row space, also when only copies of one row remain.
TEST(WeightSpaceConstraint, ZeroAndCopiedRowsAreIgnored) {
  const Index nv = 200;
  const MatrixXd B = MatrixXd::Random(5, nv);
  MatrixXd A(13, nv);
  A << B, MatrixXd::Zero(3, nv), B.topRows(3), -0.0 * B.topRows(1), B.bottomRows(1);
  const VectorXd m = VectorXd::LinSpaced(nv, 0.5, 2.0);
  const MatrixXd Q = row_space_basis(A, m, 1e-9), Qb = row_space_basis(B, m, 1e-9);
  ASSERT_EQ(Q.rows(), 5);
  EXPECT_LT(test::max_abs(B - B * Q.transpose() * Q), 1e-10 * test::max_abs(B));
  EXPECT_LT(test::max_abs(Qb - Qb * Q.transpose() * Q), 1e-10);
  MatrixXd copies(4, nv);
  copies << B.row(2), B.row(2), MatrixXd::Zero(1, nv), B.row(2);
  EXPECT_EQ(row_space_basis(copies, m, 1e-9).rows(), 1);
}

}  // namespace test_lbs_weight_space_constraint
}  // namespace fastcd
