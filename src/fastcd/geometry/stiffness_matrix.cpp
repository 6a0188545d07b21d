#include "fastcd/geometry/stiffness_matrix.hpp"

#include "fastcd/common/check.hpp"
#include "fastcd/geometry/massmatrix.hpp"

namespace fastcd {

SparseMatrix stiffness_matrix(const SparseMatrix& G, const Eigen::Ref<const VectorXd>& w, Index dim) {
  FASTCD_CHECK(dim == 2 || dim == 3, "stiffness_matrix: dimension must be 2 or 3, got ", dim);
  const Index d2 = dim * dim;
  FASTCD_CHECK(G.rows() % d2 == 0 && G.cols() % dim == 0, "stiffness_matrix: G is ", shape_of(G), ", expected #T*", d2,
               " x #V*", dim);
  FASTCD_CHECK(w.size() * d2 == G.rows(), "stiffness_matrix: w has ", w.size(), " entries, G has ", G.rows() / d2,
               " elements");
  check_finite(w, "w", "stiffness_matrix");
  const SparseMatrix We = sparse_diagonal(w.replicate(1, d2).transpose().reshaped());
  return SparseMatrix(G.transpose() * We * G);
}

SparseMatrix kron_identity_block(const SparseMatrix& A, Index k) {
  FASTCD_CHECK(k >= 1, "kron_identity_block: k must be >= 1, got ", k);
  FASTCD_CHECK(A.rows() % k == 0 && A.cols() % k == 0, "kron_identity_block: A is ", shape_of(A),
               ", not a multiple of ", k);
  std::vector<Triplet> entries;
  entries.reserve(static_cast<std::size_t>(A.nonZeros() / k));
  for (Index c = 0; c < A.outerSize(); c += k)
    for (SparseMatrix::InnerIterator it(A, c); it; ++it)
      if (it.row() % k == 0) entries.emplace_back(it.row() / k, c / k, it.value());
  SparseMatrix As(A.rows() / k, A.cols() / k);
  As.setFromTriplets(entries.begin(), entries.end());
  return As;
}

}  // namespace fastcd
