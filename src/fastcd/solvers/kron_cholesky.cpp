#include "fastcd/solvers/kron_cholesky.hpp"

#include <Eigen/CholmodSupport>
#include <Eigen/SparseCholesky>
#include <limits>

#include "fastcd/common/check.hpp"
#include "fastcd/common/threads.hpp"

namespace fastcd {

struct KronCholesky::Impl {
  // Simplicial: P As P^T = L D L^T, L unit lower (strict part stored column-wise).
  std::vector<int> Lp, Li;
  std::vector<double> Lx, Dinv;
  // The same strict part row-wise (CSR), so the forward solve is a dot product per row (loads
  // only) instead of column updates (a read-modify-write per entry).
  std::vector<int> Rp, Ri;
  std::vector<double> Rx;
  std::vector<int> perm;  ///< y[perm[i]] = b[i]
  Eigen::CholmodSupernodalLLT<SparseMatrix> cholmod;
  Index cholmod_entries = 0;  ///< nonzeros of CHOLMOD's L (its analysis statistic lnz)
};

KronCholesky::KronCholesky() : impl_(std::make_unique<Impl>()) {}
KronCholesky::~KronCholesky() = default;
KronCholesky::KronCholesky(KronCholesky&&) noexcept = default;
KronCholesky& KronCholesky::operator=(KronCholesky&&) noexcept = default;

void KronCholesky::compute(const SparseMatrix& As, Index d, CholeskyBackend backend) {
  FASTCD_CHECK(As.rows() == As.cols(), "matrix must be square, got ", shape_of(As));
  FASTCD_CHECK(d >= 1, "d must be >= 1, got ", d);
  FASTCD_CHECK(As.rows() < std::numeric_limits<int>::max(), "matrix too large: ", shape_of(As));
  n_ = As.rows();
  d_ = d;
  used_ = backend;
  if (backend == CholeskyBackend::Auto)
    used_ = (d == 3 && n_ > 3000) ? CholeskyBackend::Cholmod : CholeskyBackend::Eigen;
  impl_ = std::make_unique<Impl>();  // (a refactorisation starts clean)
  Impl& m = *impl_;
  if (used_ == CholeskyBackend::Cholmod) {
    m.cholmod.cholmod().print = 0;             // the library never prints (CHOLMOD warns on stderr otherwise)
    const SingleThreadedBlas one_blas_thread;  // deterministic, and no BLAS threads spinning
    m.cholmod.compute(As);
    FASTCD_ENSURE(m.cholmod.info() == Eigen::Success, "CHOLMOD: the ", shape_of(As),
                  " matrix is not positive definite");
    m.cholmod_entries = static_cast<Index>(m.cholmod.cholmod().lnz);
    return;
  }
  const auto n = static_cast<std::size_t>(n_);
  Eigen::SimplicialLDLT<SparseMatrix> ldlt(As);
  FASTCD_ENSURE(ldlt.info() == Eigen::Success && ldlt.vectorD().minCoeff() > 0, "the ", shape_of(As),
                " matrix is not positive definite");
  const SparseMatrix L = ldlt.matrixL();  // unit lower triangular
  m.Lp.assign(n + 1, 0);
  for (Index j = 0; j < n_; ++j) {
    for (SparseMatrix::InnerIterator it(L, j); it; ++it)
      if (it.row() > j) {
        m.Li.push_back(static_cast<int>(it.row()));
        m.Lx.push_back(it.value());
      }
    m.Lp[static_cast<std::size_t>(j) + 1] = static_cast<int>(m.Li.size());
  }
  m.Rp.assign(n + 1, 0);
  for (int i : m.Li) ++m.Rp[static_cast<std::size_t>(i) + 1];
  for (std::size_t i = 0; i < n; ++i) m.Rp[i + 1] += m.Rp[i];
  m.Ri.resize(m.Li.size());
  m.Rx.resize(m.Li.size());
  std::vector<int> fill(m.Rp.begin(), m.Rp.end() - 1);
  for (std::size_t j = 0; j < n; ++j)  // ascending columns within each row
    for (int p = m.Lp[j]; p < m.Lp[j + 1]; ++p) {
      const auto q = static_cast<std::size_t>(fill[static_cast<std::size_t>(m.Li[static_cast<std::size_t>(p)])]++);
      m.Ri[q] = static_cast<int>(j);
      m.Rx[q] = m.Lx[static_cast<std::size_t>(p)];
    }
  m.Dinv.resize(n);
  for (std::size_t j = 0; j < n; ++j) m.Dinv[j] = 1.0 / ldlt.vectorD()(static_cast<Index>(j));
  m.perm.resize(n);
  for (std::size_t i = 0; i < n; ++i) m.perm[i] = ldlt.permutationP().indices()(static_cast<Index>(i));
}

namespace {
template <int D>
void ldlt_solve(const KronCholesky::Impl& m, Index n, double* __restrict y, const double* __restrict b,
                double* __restrict x) {
  const int* __restrict perm = m.perm.data();
  const int* __restrict Rp = m.Rp.data();
  const int* __restrict Ri = m.Ri.data();
  const double* __restrict Rx = m.Rx.data();
  const int* __restrict Lp = m.Lp.data();
  const int* __restrict Li = m.Li.data();
  const double* __restrict Lx = m.Lx.data();
  const double* __restrict Dinv = m.Dinv.data();
  for (Index i = 0; i < n; ++i)
    for (int c = 0; c < D; ++c) y[perm[i] * D + c] = b[i * D + c];
  for (Index i = 0; i < n; ++i) {  // L y = y by rows: y_i -= sum_k L_ik y_k
    double acc[D];
    for (int c = 0; c < D; ++c) acc[c] = y[i * D + c];
    for (int p = Rp[i]; p < Rp[i + 1]; ++p)
      for (int c = 0; c < D; ++c) acc[c] -= Rx[p] * y[Ri[p] * D + c];
    for (int c = 0; c < D; ++c) y[i * D + c] = acc[c];
  }
  for (Index j = n - 1; j >= 0; --j) {  // y /= D, and L^T y = y by columns of L (rows of L^T)
    double acc[D];
    for (int c = 0; c < D; ++c) acc[c] = y[j * D + c] * Dinv[j];
    for (int p = Lp[j]; p < Lp[j + 1]; ++p)
      for (int c = 0; c < D; ++c) acc[c] -= Lx[p] * y[Li[p] * D + c];
    for (int c = 0; c < D; ++c) y[j * D + c] = acc[c];
  }
  for (Index i = 0; i < n; ++i)
    for (int c = 0; c < D; ++c) x[i * D + c] = y[perm[i] * D + c];
}
}  // namespace

Index KronCholesky::factor_entries() const {
  const Impl& m = *impl_;
  return used_ == CholeskyBackend::Cholmod ? m.cholmod_entries : static_cast<Index>(m.Lx.size()) + n_;
}

void KronCholesky::solve(const double* b, double* x, double* scratch) const {
  const Impl& m = *impl_;
  if (used_ == CholeskyBackend::Cholmod) {
    // Interleaved b is the column-major d x n matrix; CHOLMOD wants n x d columns.
    const MatrixXd B = Eigen::Map<const MatrixXd>(b, d_, n_).transpose();
    const SingleThreadedBlas one_blas_thread;
    const MatrixXd X = m.cholmod.solve(B);
    Eigen::Map<MatrixXd>(x, d_, n_) = X.transpose();
    return;
  }
  switch (d_) {
    case 1:
      ldlt_solve<1>(m, n_, scratch, b, x);
      break;
    case 2:
      ldlt_solve<2>(m, n_, scratch, b, x);
      break;
    case 3:
      ldlt_solve<3>(m, n_, scratch, b, x);
      break;
    default:
      FASTCD_CHECK(false, "only d in {1, 2, 3} is supported, got ", d_);
  }
}

}  // namespace fastcd
