#pragma once
// KronCholesky: solves with A = kron(As, I_d) through a factorisation of the scalar As.
//
// ARAP stiffness and lumped mass act identically on every coordinate, so the full-order
// system H = L + M/h^2 equals kron(Hs, I_dim) on interleaved DOFs. Factoring the scalar Hs
// (#V x #V instead of #V*dim) cuts the factorisation cost and memory by dim^2 or more, and the
// solve streams the factor once for all dim coordinates.
#include <cstddef>
#include <memory>

#include "fastcd/common/types.hpp"

namespace fastcd {

enum class CholeskyBackend {
  Auto,     ///< Eigen for 2D and small 3D problems, CHOLMOD for large 3D ones
  Eigen,    ///< Eigen::SimplicialLDLT (AMD ordering) with a fused interleaved solve
  Cholmod,  ///< factorised by CHOLMOD supernodal LL^T (BLAS-3: 10-20x faster on large 3D meshes, its
            ///< ordering), then kept simplicially for the same fused solve
};

class KronCholesky {
 public:
  KronCholesky();
  ~KronCholesky();
  KronCholesky(KronCholesky&&) noexcept;
  KronCholesky& operator=(KronCholesky&&) noexcept;

  /// Factorises the scalar SPD As (n x n) for systems kron(As, I_d).
  /// Backend Auto: Eigen's simplicial LDL^T, or CHOLMOD's supernodal factorisation for large
  /// 3D meshes; either factor is then solved by the same fused interleaved LDL^T solve.
  /// @throws std::runtime_error when As is not positive definite.
  void compute(const SparseMatrix& As, Index d, CholeskyBackend backend = CholeskyBackend::Auto);
  /// x = kron(As, I_d)^{-1} b for interleaved vectors of size n*d (x may not alias b).
  /// `scratch` holds scratch_size() doubles; with it a solve allocates nothing (either
  /// backend), and concurrent solves with separate scratch buffers are safe.
  void solve(const double* b, double* x, double* scratch) const;
  Index size() const { return n_ * d_; }
  /// Doubles a solve's scratch buffer needs: n*d, or 4n for d = 3 (each vertex's coordinates
  /// padded to one 4-lane register).
  Index scratch_size() const;
  /// Entries stored for the factor of As (strict lower part plus diagonal).
  Index factor_entries() const;
  /// Bytes held by the factor (its values, indices, permutation and, for small factors, the
  /// row-wise copy).
  std::size_t memory_bytes() const;
  CholeskyBackend backend() const { return used_; }

  struct Impl;  ///< the factor (opaque; defined in kron_cholesky.cpp)

 private:
  std::unique_ptr<Impl> impl_;
  Index n_ = 0, d_ = 1;
  CholeskyBackend used_ = CholeskyBackend::Eigen;
};

}  // namespace fastcd
