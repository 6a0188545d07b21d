#include "fastcd/subspace/orthonormalize.hpp"

#include <Eigen/QR>
#include <cmath>

#include "fastcd/common/check.hpp"

namespace fastcd {

VectorXd diagonal_of(const SparseMatrix& M, const char* what, const char* where) {
  FASTCD_CHECK(M.rows() == M.cols(), what, " must be square, got ", shape_of(M), " (", where, ")");
  for (Index c = 0; c < M.outerSize(); ++c)
    for (SparseMatrix::InnerIterator it(M, c); it; ++it)
      FASTCD_CHECK(it.row() == it.col() || it.value() == 0.0, what, " must be diagonal, but ", what, "(", it.row(),
                   ", ", it.col(), ") = ", it.value(), " (", where, ")");
  return M.diagonal();
}

Orthonormalization orthonormalize_factor(const Eigen::Ref<const MatrixXd>& B, const SparseMatrix& M, double threshold,
                                         double rank_rtol) {
  FASTCD_CHECK(M.rows() == B.rows(), "M is ", shape_of(M), " but B has ", B.rows(), " rows");
  const VectorXd m = diagonal_of(M, "M", "orthonormalize");
  for (Index i = 0; i < m.size(); ++i)
    FASTCD_CHECK(m(i) > 0 && std::isfinite(m(i)), "M(", i, ", ", i, ") = ", m(i), " must be > 0");
  check_finite(B, "B", "orthonormalize");
  const VectorXd sq = m.cwiseSqrt();
  const MatrixXd Bm = sq.asDiagonal() * B;
  Eigen::HouseholderQR<MatrixXd> qr(Bm);
  const Index r = std::min(B.rows(), B.cols());
  Orthonormalization out;
  out.R = qr.matrixQR().topRows(r).triangularView<Eigen::Upper>();
  const MatrixXd Qm = qr.householderQ() * MatrixXd::Identity(B.rows(), r);
  const double rmax = r > 0 ? out.R.diagonal().cwiseAbs().maxCoeff() : 0.0;
  bool dependent = false;
  for (Index j = 0; j < r; ++j) {
    if (out.R.row(j).cwiseAbs().sum() <= threshold) continue;  // simkit: an all-zero R row
    if (std::abs(out.R(j, j)) > rank_rtol * rmax)
      out.kept.push_back(j);
    else
      dependent = true;
  }
  if (dependent) {
    // Unpivoted Householder has no rank-revealing power once a column is dependent (later
    // columns are expressed partly along a noise direction), so use column pivoting:
    // Bm[:, perm[:rank]] = Q_rank R_rank.
    Eigen::ColPivHouseholderQR<MatrixXd> cp(Bm);
    cp.setThreshold(rank_rtol);
    const Index rank = cp.rank();
    const MatrixXd Qp = cp.householderQ() * MatrixXd::Identity(B.rows(), rank);
    out.R = cp.matrixR().topLeftCorner(rank, rank).triangularView<Eigen::Upper>();
    out.kept.clear();
    for (Index k = 0; k < rank; ++k) out.kept.push_back(cp.colsPermutation().indices()(k));
    out.Q = sq.cwiseInverse().asDiagonal() * Qp;
    return out;
  }
  out.Q.resize(B.rows(), static_cast<Index>(out.kept.size()));
  for (Index k = 0; k < static_cast<Index>(out.kept.size()); ++k)
    out.Q.col(k) = Qm.col(out.kept[static_cast<std::size_t>(k)]).cwiseQuotient(sq);
  return out;
}

MatrixXd orthonormalize(const Eigen::Ref<const MatrixXd>& B, const SparseMatrix& M, double threshold,
                        double rank_rtol) {
  return orthonormalize_factor(B, M, threshold, rank_rtol).Q;
}

MatrixXd orthonormalize(const Eigen::Ref<const MatrixXd>& B, double threshold, double rank_rtol) {
  SparseMatrix I(B.rows(), B.rows());
  I.setIdentity();
  return orthonormalize_factor(B, I, threshold, rank_rtol).Q;
}

}  // namespace fastcd
