#include "fastcd/solvers/sparse_cholesky.hpp"

#include <Eigen/CholmodSupport>
#include <Eigen/SparseCholesky>

#include "fastcd/common/check.hpp"

namespace fastcd {

struct SparseCholesky::Impl {
  Eigen::SimplicialLDLT<SparseMatrix> ldlt;
  Eigen::CholmodSupernodalLLT<SparseMatrix> cholmod;
};

SparseCholesky::SparseCholesky() : impl_(std::make_unique<Impl>()) {}
SparseCholesky::~SparseCholesky() = default;
SparseCholesky::SparseCholesky(SparseCholesky&&) noexcept = default;
SparseCholesky& SparseCholesky::operator=(SparseCholesky&&) noexcept = default;

void SparseCholesky::compute(const SparseMatrix& A, CholeskyBackend backend, Index dim_hint) {
  FASTCD_CHECK(A.rows() == A.cols(), "matrix must be square, got ", shape_of(A));
  n_ = A.rows();
  used_ = backend;
  if (backend == CholeskyBackend::Auto)
    used_ = (dim_hint == 3 && n_ > 3000) ? CholeskyBackend::Cholmod : CholeskyBackend::Eigen;
  if (used_ == CholeskyBackend::Cholmod) {
    impl_->cholmod.compute(A);
    FASTCD_ENSURE(impl_->cholmod.info() == Eigen::Success, "CHOLMOD: the ", shape_of(A),
                  " matrix is not positive definite");
  } else {
    impl_->ldlt.compute(A);
    FASTCD_ENSURE(impl_->ldlt.info() == Eigen::Success && impl_->ldlt.vectorD().minCoeff() > 0,
                  "the ", shape_of(A), " matrix is not positive definite");
  }
}

void SparseCholesky::solve(const Eigen::Ref<const MatrixXd>& b, Eigen::Ref<MatrixXd> x) const {
  FASTCD_CHECK(b.rows() == n_ && x.rows() == n_ && x.cols() == b.cols(), "b is ", shape_of(b),
               ", x is ", shape_of(x), " for a ", n_, " x ", n_, " factor");
  if (used_ == CholeskyBackend::Cholmod) x = impl_->cholmod.solve(b);
  else x = impl_->ldlt.solve(b);
}

MatrixXd SparseCholesky::solve(const Eigen::Ref<const MatrixXd>& b) const {
  MatrixXd x(b.rows(), b.cols());
  solve(b, x);
  return x;
}

}  // namespace fastcd
