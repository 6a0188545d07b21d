// The one stiffness both solvers factor: the matrix before this construction existed, entry for
// entry; the same matrix in FullCD and FastCD; per-element weights.
#include "test_util.hpp"

namespace fastcd {
namespace test_stiffness_matrix {

/// A and B have the same pattern and the same values, bit for bit.
bool identical(const SparseMatrix& A, const SparseMatrix& B) {
  if (A.rows() != B.rows() || A.cols() != B.cols() || A.nonZeros() != B.nonZeros()) return false;
  for (Index c = 0; c < A.outerSize(); ++c) {
    SparseMatrix::InnerIterator a(A, c), b(B, c);
    for (; a && b; ++a, ++b)
      if (a.row() != b.row() || a.value() != b.value()) return false;
    if (a || b) return false;
  }
  return true;
}

class StiffnessMatrix : public ::testing::TestWithParam<int> {};

// elastic_operators' L is the matrix it was before (G^T AMue G as one expression), bit for bit,
// and kron(its scalar block, I) is L itself.
TEST_P(StiffnessMatrix, EqualsTheAssembledArapStiffnessEntryForEntry) {
  const int d = GetParam();
  for (const Mesh& m : {test::mesh_for(d), d == 2 ? triangulated_grid(9, 7) : tetrahedralized_grid(5, 4, 4)}) {
    const ElasticOperators op = elastic_operators(m.X, m.T, 2e4, 0.3, 1e3);
    const SparseMatrix before = SparseMatrix(op.G.transpose() * op.AMue * op.G);
    EXPECT_TRUE(identical(op.L, before));
    EXPECT_TRUE(identical(stiffness_matrix(op.G, op.mu_vol, d), before));
    const SparseMatrix Ls = kron_identity_block(op.L, d);
    EXPECT_EQ(Ls.rows(), m.X.rows());
    EXPECT_TRUE(identical(kron_identity(Ls, d), op.L));
    // The Dirichlet Laplacian is the same operator, summed in another order.
    const MatrixXd K = dirichlet_laplacian(m.X, m.T, op.mu);
    EXPECT_LT(test::max_abs(MatrixXd(Ls) - K), 1e-13 * test::max_abs(K));
  }
}

// Per-element (painted) weights: x^T L x = sum_e w_e ||G_e x||^2, L symmetric PSD, rigid
// translations in its null space.
TEST_P(StiffnessMatrix, PerElementWeights) {
  const int d = GetParam();
  const Mesh m = test::mesh_for(d);
  const SparseMatrix G = deformation_jacobian(m.X, m.T);
  const VectorXd w = VectorXd::LinSpaced(m.T.rows(), 0.5, 4.0);
  const SparseMatrix L = stiffness_matrix(G, w, d);
  const VectorXd x = VectorXd::Random(m.X.size()), F = G * x;
  double E = 0.0;
  for (Index e = 0; e < m.T.rows(); ++e) E += w(e) * F.segment(e * d * d, d * d).squaredNorm();
  EXPECT_NEAR(x.dot(L * x), E, 1e-12 * E);
  EXPECT_LT(test::max_abs(MatrixXd(L) - MatrixXd(L).transpose()), 1e-14 * test::max_abs(MatrixXd(L)));
  EXPECT_LT((L * test::flat(MatrixXd::Ones(m.X.rows(), d))).norm(), 1e-10 * test::max_abs(MatrixXd(L)));
  // Doubling one element's weight changes L by exactly that element's stiffness.
  VectorXd w2 = w;
  w2(3) *= 2.0;
  VectorXd one = VectorXd::Zero(w.size());
  one(3) = w(3);
  EXPECT_LT(test::max_abs(MatrixXd(stiffness_matrix(G, w2, d) - L - stiffness_matrix(G, one, d))),
            1e-12 * test::max_abs(MatrixXd(L)));
}

INSTANTIATE_TEST_SUITE_P(Dim, StiffnessMatrix, ::testing::Values(2, 3));

// FullCD and FastCD factor the same stiffness: FullCD's operators().L is elastic_operators' L
// (what fast_cd_precompute builds its reduced system from) entry for entry, and FastCD's reduced
// system matrix is B^T L B + B^T M B / h^2 with that very L.
TEST(StiffnessMatrix, FullAndFastSolversShareOneStiffness) {
  for (int d : {2, 3}) {
    const Mesh m = test::mesh_for(d);
    CDOptions o;
    o.ym = 3e4;
    o.modes = 4;
    o.clusters = 6;
    const ElasticOperators op = elastic_operators(m.X, m.T, o.ym, o.pr, o.rho);
    const LinearRig rig = affine_handle_rig(m.X, op.Mv);
    const FullCD full = full_cd_precompute(m.X, m.T, rig, o);
    const FastCD fast = fast_cd_precompute(m.X, m.T, rig.J, rig.p0, o);
    EXPECT_TRUE(identical(full.operators().L, op.L)) << "dim " << d;
    EXPECT_TRUE(identical(full.operators().L, stiffness_matrix(op.G, op.mu_vol, d))) << "dim " << d;
    const MatrixXd& B = fast.B();
    const MatrixXd Hr = B.transpose() * (full.operators().L * B) + B.transpose() * (op.Mv * B) / (o.dt * o.dt);
    const MatrixXd Hr_fast = fast.reduced_operators().Hr.reconstructedMatrix();
    EXPECT_LT((Hr_fast - Hr).norm(), 1e-10 * Hr.norm()) << "dim " << d;
    // A stiffness differing in one element would show: the check can fail.
    VectorXd w = op.mu_vol;
    w(0) *= 1.5;
    const MatrixXd Hr_other =
        B.transpose() * (stiffness_matrix(op.G, w, d) * B) + B.transpose() * (op.Mv * B) / (o.dt * o.dt);
    EXPECT_GT((Hr_fast - Hr_other).norm(), 1e-6 * Hr.norm()) << "dim " << d;
  }
}

TEST(StiffnessMatrix, RejectsBadInput) {
  const Mesh m = test::mesh2d();
  const SparseMatrix G = deformation_jacobian(m.X, m.T);
  test::expect_throw_with<std::invalid_argument>([&] { stiffness_matrix(G, VectorXd::Ones(3), 2); }, "w has 3");
  test::expect_throw_with<std::invalid_argument>([&] { stiffness_matrix(G, VectorXd::Ones(m.T.rows()), 4); },
                                                 "dimension must be 2 or 3");
  VectorXd w = VectorXd::Ones(m.T.rows());
  w(1) = INFINITY;
  test::expect_throw_with<std::invalid_argument>([&] { stiffness_matrix(G, w, 2); }, "w");
  test::expect_throw_with<std::invalid_argument>([&] { kron_identity_block(G, 5); }, "not a multiple of 5");
}

}  // namespace test_stiffness_matrix
}  // namespace fastcd
