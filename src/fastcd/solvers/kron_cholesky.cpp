#include "fastcd/solvers/kron_cholesky.hpp"

#include <Eigen/CholmodSupport>
#include <Eigen/SparseCholesky>

#include "fastcd/common/check.hpp"

namespace fastcd {

struct KronCholesky::Impl {
  // Simplicial: P As P^T = L D L^T, L unit lower (strict part stored column-wise).
  std::vector<int> Lp, Li;
  std::vector<double> Lx, Dinv;
  std::vector<int> perm;  ///< y[perm[i]] = b[i]
  Eigen::CholmodSupernodalLLT<SparseMatrix> cholmod;
};

KronCholesky::KronCholesky() : impl_(std::make_unique<Impl>()) {}
KronCholesky::~KronCholesky() = default;
KronCholesky::KronCholesky(KronCholesky&&) noexcept = default;
KronCholesky& KronCholesky::operator=(KronCholesky&&) noexcept = default;

void KronCholesky::compute(const SparseMatrix& As, Index d, CholeskyBackend backend) {
  FASTCD_CHECK(As.rows() == As.cols(), "matrix must be square, got ", shape_of(As));
  FASTCD_CHECK(d >= 1, "d must be >= 1, got ", d);
  n_ = As.rows();
  d_ = d;
  used_ = backend;
  if (backend == CholeskyBackend::Auto) used_ = (d == 3 && n_ > 3000) ? CholeskyBackend::Cholmod : CholeskyBackend::Eigen;
  Impl& m = *impl_;
  if (used_ == CholeskyBackend::Cholmod) {
    m.cholmod.compute(As);
    FASTCD_ENSURE(m.cholmod.info() == Eigen::Success, "CHOLMOD: the ", shape_of(As), " matrix is not positive definite");
    return;
  }
  Eigen::SimplicialLDLT<SparseMatrix> ldlt(As);
  FASTCD_ENSURE(ldlt.info() == Eigen::Success && ldlt.vectorD().minCoeff() > 0, "the ", shape_of(As),
                " matrix is not positive definite");
  const SparseMatrix L = ldlt.matrixL();  // unit lower triangular
  m.Lp.assign(static_cast<std::size_t>(n_) + 1, 0);
  m.Li.clear();
  m.Lx.clear();
  for (Index j = 0; j < n_; ++j) {
    for (SparseMatrix::InnerIterator it(L, j); it; ++it)
      if (it.row() > j) {
        m.Li.push_back(static_cast<int>(it.row()));
        m.Lx.push_back(it.value());
      }
    m.Lp[static_cast<std::size_t>(j) + 1] = static_cast<int>(m.Li.size());
  }
  m.Dinv.resize(static_cast<std::size_t>(n_));
  for (Index j = 0; j < n_; ++j) m.Dinv[static_cast<std::size_t>(j)] = 1.0 / ldlt.vectorD()(j);
  m.perm.resize(static_cast<std::size_t>(n_));
  for (Index i = 0; i < n_; ++i) m.perm[static_cast<std::size_t>(i)] = ldlt.permutationP().indices()(i);
}

namespace {
template <int D>
void ldlt_solve(const KronCholesky& /*tag*/, Index n, const std::vector<int>& Lp, const std::vector<int>& Li,
                const std::vector<double>& Lx, const std::vector<double>& Dinv, const std::vector<int>& perm,
                double* y, const double* b, double* x) {
  for (Index i = 0; i < n; ++i)
    for (int c = 0; c < D; ++c) y[perm[i] * D + c] = b[i * D + c];
  for (Index j = 0; j < n; ++j) {  // L y = y
    const double* yj = y + j * D;
    for (int p = Lp[j]; p < Lp[j + 1]; ++p) {
      double* yi = y + Li[p] * D;
      for (int c = 0; c < D; ++c) yi[c] -= Lx[p] * yj[c];
    }
  }
  for (Index j = 0; j < n; ++j)
    for (int c = 0; c < D; ++c) y[j * D + c] *= Dinv[j];
  for (Index j = n - 1; j >= 0; --j) {  // L^T y = y
    double acc[D];
    for (int c = 0; c < D; ++c) acc[c] = y[j * D + c];
    for (int p = Lp[j]; p < Lp[j + 1]; ++p) {
      const double* yi = y + Li[p] * D;
      for (int c = 0; c < D; ++c) acc[c] -= Lx[p] * yi[c];
    }
    for (int c = 0; c < D; ++c) y[j * D + c] = acc[c];
  }
  for (Index i = 0; i < n; ++i)
    for (int c = 0; c < D; ++c) x[i * D + c] = y[perm[i] * D + c];
}
}  // namespace

void KronCholesky::solve(const double* b, double* x, double* scratch) const {
  const Impl& m = *impl_;
  if (used_ == CholeskyBackend::Cholmod) {
    // Interleaved b is the column-major d x n matrix; CHOLMOD wants n x d columns.
    const MatrixXd B = Eigen::Map<const MatrixXd>(b, d_, n_).transpose();
    const MatrixXd X = m.cholmod.solve(B);
    Eigen::Map<MatrixXd>(x, d_, n_) = X.transpose();
    return;
  }
  switch (d_) {
    case 1: ldlt_solve<1>(*this, n_, m.Lp, m.Li, m.Lx, m.Dinv, m.perm, scratch, b, x); break;
    case 2: ldlt_solve<2>(*this, n_, m.Lp, m.Li, m.Lx, m.Dinv, m.perm, scratch, b, x); break;
    case 3: ldlt_solve<3>(*this, n_, m.Lp, m.Li, m.Lx, m.Dinv, m.perm, scratch, b, x); break;
    default: FASTCD_CHECK(false, "only d in {1, 2, 3} is supported, got ", d_);
  }
}

}  // namespace fastcd
