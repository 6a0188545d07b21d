#include "fastcd/subspace/lbs_weight_space_constraint.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "fastcd/common/check.hpp"
#include "fastcd/common/dense_decompositions.hpp"
#include "fastcd/common/memory.hpp"
#include "fastcd/geometry/massmatrix.hpp"

namespace fastcd {

namespace {

// Indices of A's rows that are non-zero and not an exact copy of an earlier row.
std::vector<Index> distinct_nonzero_rows(const Eigen::Ref<const MatrixXd>& A) {
  std::vector<std::uint64_t> hash(static_cast<std::size_t>(A.rows()), 1469598103934665603ULL);
  std::vector<char> nonzero(static_cast<std::size_t>(A.rows()), 0);
  for (Index c = 0; c < A.cols(); ++c)
    for (Index r = 0; r < A.rows(); ++r) {
      const double v = A(r, c) == 0.0 ? 0.0 : A(r, c);  // -0 and +0 hash alike
      std::uint64_t bits;
      std::memcpy(&bits, &v, sizeof bits);
      auto& h = hash[static_cast<std::size_t>(r)];
      h = (h ^ bits) * 1099511628211ULL;
      if (v != 0.0) nonzero[static_cast<std::size_t>(r)] = 1;
    }
  std::unordered_map<std::uint64_t, std::vector<Index>> seen;
  std::vector<Index> keep;
  for (Index r = 0; r < A.rows(); ++r) {
    if (!nonzero[static_cast<std::size_t>(r)]) continue;
    auto& same = seen[hash[static_cast<std::size_t>(r)]];
    const bool copy = std::any_of(same.begin(), same.end(), [&](Index q) { return A.row(q) == A.row(r); });
    if (copy) continue;
    same.push_back(r);
    keep.push_back(r);
  }
  return keep;
}

const char* const kFewerHandles = "use a rig with fewer handles (bones), or a coarser mesh";

}  // namespace

double row_space_bytes(double rows, double cols) { return 8.0 * (6.0 * cols * rows + 3.0 * rows * rows); }

MatrixXd row_space_basis(const Eigen::Ref<const MatrixXd>& A, const Eigen::Ref<const VectorXd>& m, double rtol) {
  FASTCD_CHECK(m.size() == A.cols(), "weights have ", m.size(), " entries for ", A.cols(), " columns");
  FASTCD_CHECK(rtol > 0 && rtol < 1, "rtol must lie in (0, 1), got ", rtol);
  for (Index v = 0; v < m.size(); ++v)
    FASTCD_CHECK(m(v) > 0, "weight ", v, " is ", m(v), " (a vertex in no element?); weights must be > 0");
  if (A.rows() == 0 || A.norm() == 0.0) return MatrixXd(0, A.cols());
  const VectorXd sq = m.cwiseSqrt();
  // Zero rows and exact duplicates do not change the row space; dropping them first keeps the
  // QR below small. LBS constraints are full of both: row (bone k, component i, coordinate a)
  // of C acts on component i only, so 2/3 of each C_i block is zero, and the rest repeats once
  // per component (a 24-bone character: 3456 rows, 384 distinct; its QR went from 30 s to 0.3 s).
  const std::vector<Index> keep = distinct_nonzero_rows(A);
  const double bytes = row_space_bytes(static_cast<double>(keep.size()), static_cast<double>(A.cols()));
  check_memory(bytes,
               "orthonormalising the rig's constraint (" + std::to_string(keep.size()) + " independent rows over " +
                   std::to_string(A.cols()) + " entries)",
               kFewerHandles);
  const MatrixXd Bm = sq.asDiagonal() * A(keep, Eigen::all).transpose();  // #V x kept rows
  // Bm = Q R (Householder, blocked BLAS-3), then the SVD of the small square R = U_R S V^T:
  // Bm's singular values are R's and its left singular vectors are Q U_R. For the tall Bm of a
  // real mesh (#V rows, 12 x #params columns) this is much cheaper than a direct BDCSVD (Spot,
  // 4447 x 864: the whole fast precompute went from 2.4 to 1.6 s).
  auto rank = [&](const VectorXd& s) {
    Index r = 0;
    while (r < s.size() && s(r) > rtol * s(0)) ++r;
    return r;
  };
  MatrixXd Ur;  // the leading r left singular vectors of Bm
  if (Bm.rows() > 2 * Bm.cols()) {
    const Eigen::HouseholderQR<MatrixXd> qr(Bm);
    const Index n = Bm.cols();
    const MatrixXd R = qr.matrixQR().topRows(n).triangularView<Eigen::Upper>();
    const Eigen::BDCSVD<MatrixXd> svd(R, Eigen::ComputeThinU);
    const Index r = rank(svd.singularValues());
    Ur = MatrixXd::Zero(Bm.rows(), r);
    Ur.topRows(n) = svd.matrixU().leftCols(r);
    Ur.applyOnTheLeft(qr.householderQ());
  } else {
    const Eigen::BDCSVD<MatrixXd> svd(Bm, Eigen::ComputeThinU);
    Ur = svd.matrixU().leftCols(rank(svd.singularValues()));
  }
  // span(A^T) = M^{-1/2} span(U_r); orthonormalise it in the Euclidean sense.
  const Index r = Ur.cols();
  const MatrixXd basis = sq.cwiseInverse().asDiagonal() * Ur;
  Eigen::HouseholderQR<MatrixXd> qr(basis);
  return (qr.householderQ() * MatrixXd::Identity(A.cols(), r)).transpose();
}

namespace {
template <class CMat>
MatrixXd weight_space_operator(const Eigen::Ref<const MatrixXd>& V, const CMat& C) {
  const Index n = V.rows(), d = V.cols(), c = C.rows();
  FASTCD_CHECK(C.cols() == n * d, "C must have #V*dim = ", n * d, " columns, got ", shape_of(C));
  // The operator (c d (d+1) x #V), then row_space_basis on its distinct rows: an LBS rig's
  // c = #handles d (d+1) rows leave about #handles (d+1)^2 of them.
  const double rows = static_cast<double>(c * d * (d + 1)), vertices = static_cast<double>(n);
  const double distinct = std::min({rows, vertices, static_cast<double>(c * (d + 1) / d)});
  const std::string handles =
      c % (d * (d + 1)) == 0 ? " (" + std::to_string(c / (d * (d + 1))) + " handles)" : std::string();
  check_memory(8.0 * (rows + static_cast<double>(c)) * vertices + row_space_bytes(distinct, vertices),
               "the fast solver's rig-orthogonal subspace for a rig of " + std::to_string(c) + " parameters" + handles +
                   " on " + std::to_string(n) + " vertices",
               std::string(kFewerHandles) + ", or the full solver");
  // C_i(row, v) = C(row, v*d + i): the constraint seen by displacement component i.
  MatrixXd A(c * d * (d + 1), n);
  for (Index i = 0; i < d; ++i) {
    MatrixXd Ci(c, n);
    for (Index v = 0; v < n; ++v) Ci.col(v) = C.col(v * d + i);
    for (Index j = 0; j <= d; ++j) {
      auto block = A.middleRows((i * (d + 1) + j) * c, c);
      if (j < d)
        block = Ci * V.col(j).asDiagonal();
      else
        block = Ci;
    }
  }
  return A;
}
}  // namespace

MatrixXd lbs_weight_space_constraint(const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& T,
                                     const SparseMatrix& C, double rtol) {
  check_mesh(V, T, "lbs_weight_space_constraint");
  for (Index k = 0; k < C.outerSize(); ++k)  // (a dense copy of C would cost #params x #V*dim)
    for (SparseMatrix::InnerIterator it(C, k); it; ++it)
      FASTCD_CHECK(std::isfinite(it.value()), "C(", it.row(), ", ", it.col(), ") is ", it.value());
  const MatrixXd A = weight_space_operator(V, C);
  return row_space_basis(A, massmatrix(V, T).diagonal(), rtol);
}

MatrixXd lbs_weight_space_constraint(const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& T,
                                     const Eigen::Ref<const MatrixXd>& C, double rtol) {
  check_mesh(V, T, "lbs_weight_space_constraint");
  check_finite(C, "C", "lbs_weight_space_constraint");
  const MatrixXd A = weight_space_operator(V, C);
  return row_space_basis(A, massmatrix(V, T).diagonal(), rtol);
}

}  // namespace fastcd
