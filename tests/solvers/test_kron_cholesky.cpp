#include <Eigen/SparseCholesky>

#include "test_util.hpp"

namespace fastcd {
namespace test_kron_cholesky {

// The scalar system of a mesh: Dirichlet Laplacian + mass / h^2 (the full-order H's block).
SparseMatrix scalar_system(const Mesh& m) {
  return SparseMatrix(dirichlet_laplacian(m.X, m.T) + massmatrix(m.X, m.T, 1e3) * 900.0);
}

// x = kron(As, I_d)^{-1} b on interleaved vectors, for every backend and d in {1, 2, 3}.
TEST(KronCholesky, SolvesKroneckerSystemsWithEveryBackend) {
  for (int dim : {2, 3}) {
    const Mesh m = test::mesh_for(dim);
    const SparseMatrix As = scalar_system(m);
    for (CholeskyBackend be : {CholeskyBackend::Auto, CholeskyBackend::Eigen, CholeskyBackend::Cholmod})
      for (Index d = 1; d <= 3; ++d) {
        KronCholesky k;
        k.compute(As, d, be);
        ASSERT_EQ(k.size(), As.rows() * d);
        EXPECT_GE(k.factor_entries(), As.rows());
        const SparseMatrix A = kron_identity(As, d);
        const VectorXd b = VectorXd::Random(k.size());
        VectorXd x(k.size()), scratch(k.scratch_size());
        k.solve(b.data(), x.data(), scratch.data());
        EXPECT_LT((A * x - b).norm(), 1e-12 * b.norm()) << "dim " << dim << " d " << d;
      }
  }
}

// The simplicial factor reproduces Eigen's SimplicialLDLT solution to rounding.
TEST(KronCholesky, SimplicialMatchesEigen) {
  const Mesh m = test::mesh2d();
  const SparseMatrix As = scalar_system(m);
  KronCholesky k;
  k.compute(As, 2, CholeskyBackend::Eigen);
  EXPECT_EQ(k.backend(), CholeskyBackend::Eigen);
  const MatrixXd B = MatrixXd::Random(As.rows(), 2);
  const MatrixXd X_ref = Eigen::SimplicialLDLT<SparseMatrix>(As).solve(B);
  const MatrixXd Bt = B.transpose();  // interleaved: column-major 2 x n
  MatrixXd Xt(2, As.rows());
  VectorXd scratch(k.scratch_size());
  k.solve(Bt.data(), Xt.data(), scratch.data());
  EXPECT_LT((Xt.transpose() - X_ref).norm(), 1e-13 * X_ref.norm());
}

// CHOLMOD factorises (supernodal, its own ordering) and its factor is then solved in the same
// fused simplicial form: it agrees with the Eigen backend to rounding on a 3D mesh large enough
// for real supernodes, repeatedly (the factor is kept, not consumed), and holds about as many
// entries.
TEST(KronCholesky, CholmodFactorSolvesLikeEigen) {
  const Mesh m = tetrahedralized_grid(12, 10, 8);
  const SparseMatrix As = scalar_system(m);
  KronCholesky c, e;
  c.compute(As, 3, CholeskyBackend::Cholmod);
  e.compute(As, 3, CholeskyBackend::Eigen);
  EXPECT_EQ(c.backend(), CholeskyBackend::Cholmod);
  EXPECT_GT(c.factor_entries(), As.rows());
  EXPECT_LT(c.factor_entries(), 3 * e.factor_entries());
  const SparseMatrix A = kron_identity(As, 3);
  VectorXd xc(c.size()), xe(c.size()), scratch(std::max(c.scratch_size(), e.scratch_size()));
  for (int rep = 0; rep < 3; ++rep) {
    const VectorXd b = VectorXd::Random(c.size());
    c.solve(b.data(), xc.data(), scratch.data());
    e.solve(b.data(), xe.data(), scratch.data());
    EXPECT_LT((A * xc - b).norm(), 1e-12 * b.norm());
    EXPECT_LT((xc - xe).norm(), 1e-11 * xe.norm());
  }
}

// Factors over 65,536 entries keep only the column-wise copy of L (the forward pass by columns):
// that path solves like Eigen's SimplicialLDLT for d = 1, 2 and 3, with either backend.
TEST(KronCholesky, LargeFactorsSolveByColumnsLikeEigen) {
  const Mesh m = tetrahedralized_grid(16, 14, 12);
  const SparseMatrix As = scalar_system(m);
  const Eigen::SimplicialLDLT<SparseMatrix> ref(As);
  for (CholeskyBackend be : {CholeskyBackend::Eigen, CholeskyBackend::Cholmod})
    for (Index d = 1; d <= 3; ++d) {
      KronCholesky k;
      k.compute(As, d, be);
      ASSERT_GT(k.factor_entries(), 65536 + As.rows()) << "the mesh no longer reaches the column-only path";
      const MatrixXd B = MatrixXd::Random(As.rows(), d);
      const MatrixXd X_ref = ref.solve(B);
      const MatrixXd Bt = B.transpose();  // interleaved: column-major d x n
      MatrixXd Xt(d, As.rows());
      VectorXd scratch(k.scratch_size());
      k.solve(Bt.data(), Xt.data(), scratch.data());
      EXPECT_LT((Xt.transpose() - X_ref).norm(), 1e-11 * X_ref.norm()) << "d " << d;
    }
}

TEST(KronCholesky, RejectsIndefiniteAndBadShapes) {
  const Mesh m = test::mesh2d();
  const SparseMatrix L = dirichlet_laplacian(m.X, m.T);  // singular (constants in its null space)
  const SparseMatrix neg = -scalar_system(m);
  for (CholeskyBackend be : {CholeskyBackend::Eigen, CholeskyBackend::Cholmod}) {
    KronCholesky k;
    test::expect_throw_with<std::runtime_error>([&] { k.compute(neg, 2, be); }, "not positive definite");
  }
  KronCholesky k;
  EXPECT_THROW(k.compute(L, 2, CholeskyBackend::Eigen), std::runtime_error);
  test::expect_throw_with<std::invalid_argument>([&] { k.compute(SparseMatrix(3, 4), 2); }, "square");
  test::expect_throw_with<std::invalid_argument>([&] { k.compute(scalar_system(m), 0); }, "d must be >= 1");
}

}  // namespace test_kron_cholesky
}  // namespace fastcd
