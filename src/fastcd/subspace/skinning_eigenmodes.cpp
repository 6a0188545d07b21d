#include "fastcd/subspace/skinning_eigenmodes.hpp"

#include <Spectra/MatOp/SparseSymMatProd.h>
#include <Spectra/SymGEigsShiftSolver.h>
#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <Eigen/SparseCholesky>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "fastcd/common/cancel.hpp"
#include "fastcd/common/check.hpp"
#include "fastcd/common/memory.hpp"
#include "fastcd/common/submatrix.hpp"
#include "fastcd/geometry/dirichlet_laplacian.hpp"
#include "fastcd/geometry/lbs_jacobian.hpp"
#include "fastcd/geometry/massmatrix.hpp"
#include "fastcd/subspace/lbs_weight_space_constraint.hpp"

namespace fastcd {

namespace {

/// Spectra shift-invert operator with a linear equality constraint built in:
/// y = (K^{-1} - Z S^{-1} Z^T) x, K = L - sigma M, Z = K^{-1} A^T, S = A Z.
class ConstrainedShiftInvert {
 public:
  using Scalar = double;
  ConstrainedShiftInvert(const SparseMatrix& L, const SparseMatrix& M, const MatrixXd& A) : L_(L), M_(M), A_(A) {}
  Index rows() const { return L_.rows(); }
  Index cols() const { return L_.cols(); }
  void set_shift(const Scalar& sigma) {
    chol_.compute(SparseMatrix(L_ - sigma * M_));
    FASTCD_ENSURE(chol_.info() == Eigen::Success, "factorising L - sigma M failed (sigma = ", sigma, ")");
    if (A_.rows() > 0) {
      Z_ = chol_.solve(MatrixXd(A_.transpose()));
      schur_.compute(A_ * Z_);
      FASTCD_ENSURE(schur_.info() == Eigen::Success, "constraint Schur complement is not SPD");
    }
  }
  void perform_op(const Scalar* x_in, Scalar* y_out) const {
    detail::throw_if_cancelled("skinning_eigenmodes");
    Eigen::Map<const VectorXd> x(x_in, rows());
    Eigen::Map<VectorXd> y(y_out, rows());
    y = chol_.solve(x);
    if (A_.rows() > 0) y -= Z_ * schur_.solve(A_ * y);
  }

 private:
  const SparseMatrix& L_;
  const SparseMatrix& M_;
  const MatrixXd& A_;
  Eigen::SimplicialLDLT<SparseMatrix> chol_;
  MatrixXd Z_;
  Eigen::LLT<MatrixXd> schur_{MatrixXd(0, 0)};  // (a default LLT has an uninitialised status)
};

struct EigenPairs {
  MatrixXd W;
  VectorXd E;
};

EigenPairs dense_constrained_eigs(const SparseMatrix& L, const VectorXd& m, const MatrixXd& A, int k) {
  const Index n = L.rows();
  MatrixXd N;  // orthonormal null-space basis of A
  if (A.rows() == 0) {
    N = MatrixXd::Identity(n, n);
  } else {
    Eigen::HouseholderQR<MatrixXd> qr(A.transpose());
    N = (qr.householderQ() * MatrixXd::Identity(n, n)).rightCols(n - A.rows());
  }
  const MatrixXd Lr = N.transpose() * (L * N);
  const MatrixXd Mr = N.transpose() * m.asDiagonal() * N;
  Eigen::GeneralizedSelfAdjointEigenSolver<MatrixXd> es(Lr, Mr);
  FASTCD_ENSURE(es.info() == Eigen::Success, "dense generalized eigen-solve failed");
  return {N * es.eigenvectors().leftCols(k), es.eigenvalues().head(k)};
}

EigenPairs spectra_constrained_eigs(const SparseMatrix& L, const SparseMatrix& M, const MatrixXd& A, int k,
                                    double sigma) {
  const Index n = L.rows();
  ConstrainedShiftInvert op(L, M, A);
  Spectra::SparseSymMatProd<double> bop(M);
  const Index ncv = std::min<Index>(n - A.rows(), std::max<Index>(2 * k + 1, 20));
  Spectra::SymGEigsShiftSolver<ConstrainedShiftInvert, Spectra::SparseSymMatProd<double>,
                               Spectra::GEigsMode::ShiftInvert>
      eigs(op, bop, k, ncv, sigma);
  eigs.init();
  eigs.compute(Spectra::SortRule::LargestMagn, 1000, 1e-12, Spectra::SortRule::SmallestAlge);
  FASTCD_ENSURE(eigs.info() == Spectra::CompInfo::Successful, "shift-invert Lanczos did not converge for ", k,
                " modes on ", n, " vertices (try fewer modes)");
  return {eigs.eigenvectors(), eigs.eigenvalues()};
}

}  // namespace

SkinningEigenmodes skinning_eigenmodes(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T, int k,
                                       double mu, const std::optional<VectorXi>& bI,
                                       const std::optional<MatrixXd>& Aeq) {
  check_mesh(X, T, "skinning_eigenmodes");
  FASTCD_CHECK(std::isfinite(mu) && mu > 0, "mu must be finite and > 0, got ", mu);
  const Index n = X.rows();
  if (Aeq) {
    FASTCD_CHECK(Aeq->cols() == n, "Aeq must be r x #V = r x ", n, ", got ", shape_of(*Aeq));
    check_finite(*Aeq, "Aeq", "skinning_eigenmodes");
  }
  // Free vertices (not in bI).
  if (bI) check_indices(*bI, n, "bI", "skinning_eigenmodes");
  std::vector<Index> free_of;
  const Index nf = keep_slots(n, bI ? *bI : VectorXi(), free_of);
  std::vector<Index> free;
  for (Index v = 0; v < n; ++v)
    if (free_of[v] >= 0) free.push_back(v);

  const SparseMatrix Lfull = dirichlet_laplacian(X, T, mu);
  const VectorXd mfull = massmatrix(X, T).diagonal();
  for (Index v = 0; v < n; ++v) FASTCD_CHECK(mfull(v) > 0, "vertex ", v, " belongs to no element");
  const SparseMatrix L = principal_submatrix(Lfull, free_of, nf);
  VectorXd m(nf);
  for (Index i = 0; i < nf; ++i) m(i) = mfull(free[static_cast<std::size_t>(i)]);

  if (Aeq && Aeq->rows() > 0) {
    // The constraint on the free vertices, its orthonormal basis (row_space_basis), the
    // shift-invert operator's K^{-1} A^T and A^T, the polish's A M^{-1} (r x #V each), the
    // Schur complement and the Gram matrix (r x r).
    const double r = static_cast<double>(Aeq->rows()), v = static_cast<double>(nf);
    check_memory(8.0 * (11.0 * r * v + 5.0 * r * r),
                 "the fast solver's skinning modes under " + std::to_string(Aeq->rows()) + " constraints on " +
                     std::to_string(nf) + " vertices",
                 "use a rig with fewer handles (bones), a coarser mesh, or the full solver");
  }
  // Independent, orthonormal constraint rows on the free vertices.
  MatrixXd A(0, nf);
  if (Aeq && Aeq->rows() > 0) {
    MatrixXd Af(Aeq->rows(), nf);
    for (Index i = 0; i < nf; ++i) Af.col(i) = Aeq->col(free[static_cast<std::size_t>(i)]);
    A = row_space_basis(Af, m, 1e-10);
  }
  const Index available = nf - A.rows();
  FASTCD_CHECK(k >= 1 && k <= available, "k = ", k, " modes requested, but only ", available, " are available (", nf,
               " free vertices, constraint rank ", A.rows(), ")");

  EigenPairs ep;
  if (available < 2 * k + 21) {
    ep = dense_constrained_eigs(L, m, A, k);
  } else {
    // Shift slightly below 0, relative to the mesh's own eigenvalue scale ~ 1/extent^2.
    const double extent2 = (X.colwise().maxCoeff() - X.colwise().minCoeff()).squaredNorm();
    const double sigma = -1e-2 * mu / extent2;
    const SparseMatrix M = sparse_diagonal(m);
    ep = spectra_constrained_eigs(L, M, A, k, sigma);
  }
  // Polish: remove what rounding in the Schur-complement solves left outside null(Aeq) by an
  // M-orthogonal projection, then a Rayleigh-Ritz step in span(W) restores M-orthonormal
  // eigenpairs. Keeps ||Aeq W|| at rounding level (~1e-16) instead of the ~1e-10 of the solves.
  if (A.rows() > 0) {
    const VectorXd minv = m.cwiseInverse();
    const MatrixXd AMinv = A * minv.asDiagonal();
    const Eigen::LLT<MatrixXd> gram(AMinv * A.transpose());
    ep.W -= AMinv.transpose() * gram.solve(A * ep.W);
  }
  {
    const MatrixXd Lr = ep.W.transpose() * (L * ep.W);
    const MatrixXd Mr = ep.W.transpose() * m.asDiagonal() * ep.W;
    Eigen::GeneralizedSelfAdjointEigenSolver<MatrixXd> rr(0.5 * (Lr + Lr.transpose()), 0.5 * (Mr + Mr.transpose()));
    FASTCD_ENSURE(rr.info() == Eigen::Success, "Rayleigh-Ritz refinement failed (modes not independent)");
    ep.W = ep.W * rr.eigenvectors();
    ep.E = rr.eigenvalues();
  }
  // Ascending order, unit M-norm, deterministic sign.
  std::vector<Index> order(static_cast<std::size_t>(k));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](Index a, Index b) { return ep.E(a) < ep.E(b); });
  SkinningEigenmodes out;
  out.W = MatrixXd::Zero(n, k);
  out.E.resize(k);
  for (Index j = 0; j < k; ++j) {
    VectorXd w = ep.W.col(order[static_cast<std::size_t>(j)]);
    w /= std::sqrt(w.dot(m.asDiagonal() * w));
    Index imax = 0;
    w.cwiseAbs().maxCoeff(&imax);
    if (w(imax) < 0) w = -w;
    for (Index i = 0; i < nf; ++i) out.W(free[static_cast<std::size_t>(i)], j) = w(i);
    out.E(j) = ep.E(order[static_cast<std::size_t>(j)]);
  }
  out.B = lbs_jacobian(X, out.W);
  return out;
}

}  // namespace fastcd
