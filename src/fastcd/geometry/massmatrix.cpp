#include "fastcd/geometry/massmatrix.hpp"

#include <cmath>
#include <vector>

#include "fastcd/common/check.hpp"
#include "fastcd/geometry/volume.hpp"

namespace fastcd {

SparseMatrix massmatrix(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                        const Eigen::Ref<const VectorXd>& rho) {
  check_mesh(X, T, "massmatrix");
  FASTCD_CHECK(rho.size() == T.rows(), "rho must be a scalar or #T = ", T.rows(), " values, got ", rho.size());
  for (Index e = 0; e < rho.size(); ++e)
    FASTCD_CHECK(std::isfinite(rho(e)) && rho(e) >= 0.0, "rho(", e, ") = ", rho(e), " must be finite and >= 0");
  const VectorXd vol = volume(X, T).cwiseAbs();
  VectorXd m = VectorXd::Zero(X.rows());
  const double share = 1.0 / static_cast<double>(T.cols());
  for (Index e = 0; e < T.rows(); ++e)
    for (Index a = 0; a < T.cols(); ++a) m(T(e, a)) += rho(e) * vol(e) * share;
  return sparse_diagonal(m);
}

SparseMatrix massmatrix(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T, double rho) {
  FASTCD_CHECK(std::isfinite(rho) && rho >= 0.0, "rho = ", rho, " must be finite and >= 0");
  return massmatrix(X, T, VectorXd::Constant(T.rows(), rho));
}

std::optional<SparseMatrix> kron_identity_factor(const SparseMatrix& A, Index k) {
  FASTCD_CHECK(k >= 1, "k must be >= 1, got ", k);
  if (A.rows() % k != 0 || A.cols() % k != 0) return std::nullopt;
  std::vector<Triplet> entries;
  for (Index c = 0; c < A.outerSize(); ++c)
    for (SparseMatrix::InnerIterator it(A, c); it; ++it) {
      if (it.value() == 0.0) continue;
      if (it.row() % k != it.col() % k) return std::nullopt;
      if (it.row() % k == 0) entries.emplace_back(it.row() / k, it.col() / k, it.value());
    }
  SparseMatrix As(A.rows() / k, A.cols() / k);
  As.setFromTriplets(entries.begin(), entries.end());
  const SparseMatrix diff = A - kron_identity(As, k);
  for (Index c = 0; c < diff.outerSize(); ++c)
    for (SparseMatrix::InnerIterator it(diff, c); it; ++it)
      if (it.value() != 0.0) return std::nullopt;
  return As;
}

SparseMatrix sparse_diagonal(const Eigen::Ref<const VectorXd>& d) {
  SparseMatrix D(d.size(), d.size());
  D.reserve(Eigen::VectorXi::Ones(d.size()));
  for (Index i = 0; i < d.size(); ++i) D.insert(i, i) = d(i);
  D.makeCompressed();
  return D;
}

SparseMatrix kron_identity(const SparseMatrix& A, Index k) {
  FASTCD_CHECK(k >= 1, "k must be >= 1, got ", k);
  std::vector<Triplet> trip;
  trip.reserve(static_cast<std::size_t>(A.nonZeros() * k));
  for (Index c = 0; c < A.outerSize(); ++c)
    for (SparseMatrix::InnerIterator it(A, c); it; ++it)
      for (Index r = 0; r < k; ++r) trip.emplace_back(it.row() * k + r, it.col() * k + r, it.value());
  SparseMatrix K(A.rows() * k, A.cols() * k);
  K.setFromTriplets(trip.begin(), trip.end());
  return K;
}

}  // namespace fastcd
