#pragma once
// SparseCholesky: one small interface over the sparse SPD factorisations fastcd uses.
#include <memory>

#include "fastcd/common/types.hpp"

namespace fastcd {

enum class CholeskyBackend {
  Auto,     ///< Eigen in 2D-sized problems, CHOLMOD supernodal for large 3D ones
  Eigen,    ///< Eigen::SimplicialLDLT (AMD ordering)
  Cholmod,  ///< CHOLMOD supernodal LL^T (BLAS-3; 10-20x faster on 3D meshes)
};

/// Factorises a symmetric positive-definite sparse matrix once and solves many times.
class SparseCholesky {
 public:
  SparseCholesky();
  ~SparseCholesky();
  SparseCholesky(SparseCholesky&&) noexcept;
  SparseCholesky& operator=(SparseCholesky&&) noexcept;

  /// Factorises A (n x n SPD). `dim_hint` = 3 lets Auto pick CHOLMOD for meshes in 3D.
  /// @throws std::runtime_error naming the matrix size when A is not positive definite.
  void compute(const SparseMatrix& A, CholeskyBackend backend = CholeskyBackend::Auto, Index dim_hint = 2);
  /// x = A^{-1} b (b may have several columns). x must not alias b.
  void solve(const Eigen::Ref<const MatrixXd>& b, Eigen::Ref<MatrixXd> x) const;
  MatrixXd solve(const Eigen::Ref<const MatrixXd>& b) const;
  Index rows() const { return n_; }
  CholeskyBackend backend() const { return used_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  Index n_ = 0;
  CholeskyBackend used_ = CholeskyBackend::Eigen;
};

}  // namespace fastcd
