#include "fastcd/geometry/biharmonic_weights.hpp"

#include <Eigen/SparseCholesky>
#include <algorithm>

#include "fastcd/common/cancel.hpp"
#include "fastcd/common/check.hpp"
#include "fastcd/common/memory.hpp"
#include "fastcd/common/submatrix.hpp"
#include "fastcd/geometry/dirichlet_laplacian.hpp"
#include "fastcd/geometry/massmatrix.hpp"

namespace fastcd {

namespace {

/// Entries of K M^{-1} K for the symmetric K: the pattern of each column j is the union of the
/// columns of K at j's neighbours (its 2-ring), counted with a marker, the product never formed.
double squared_pattern_entries(const SparseMatrix& K) {
  std::vector<Index> mark(static_cast<std::size_t>(K.rows()), -1);
  double entries = 0;
  for (Index j = 0; j < K.outerSize(); ++j)
    for (SparseMatrix::InnerIterator k(K, j); k; ++k)
      for (SparseMatrix::InnerIterator i(K, k.row()); i; ++i)
        if (mark[static_cast<std::size_t>(i.row())] != j) {
          mark[static_cast<std::size_t>(i.row())] = j;
          ++entries;
        }
  return entries;
}

}  // namespace

MatrixXd biharmonic_weights(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                            const std::vector<std::vector<Index>>& handles) {
  check_mesh(X, T, "biharmonic_weights");
  const Index n = X.rows(), h = static_cast<Index>(handles.size());
  FASTCD_CHECK(h >= 1, "no handles");
  std::vector<Index> owner(static_cast<std::size_t>(n), -1);
  std::vector<int> pinned;
  for (Index j = 0; j < h; ++j) {
    FASTCD_CHECK(!handles[j].empty(), "handle ", j, " pins no vertex");
    for (Index v : handles[j]) {
      FASTCD_CHECK(v >= 0 && v < n, "handle ", j, " pins vertex ", v, ", out of range [0, ", n, ")");
      FASTCD_CHECK(owner[v] == -1 || owner[v] == j, "vertex ", v, " is pinned by handles ", owner[v], " and ", j);
      if (owner[v] == -1) pinned.push_back(static_cast<int>(v));
      owner[v] = j;
    }
  }
  // Memory, refused before it is allocated: the weights, the right-hand sides and the solution
  // (dense, #V x #handles each), the bi-Laplacian and its sparse factor.
  const std::string what = "computing the automatic (biharmonic) weights of " + std::to_string(n) + " vertices and " +
                           std::to_string(h) + " handles";
  const double dense = 3.0 * 8.0 * static_cast<double>(n) * static_cast<double>(h);
  const auto advice = [&](double bytes) {
    // The dense part grows with the handles, the sparse factor faster than the vertex count.
    if (dense > 0.5 * bytes) return std::string("use fewer handles, or give the weights in a file");
    return coarser_mesh_advice(n, bytes) + ", or give the weights in a file";
  };
  check_memory(dense, what, advice(dense));
  const SparseMatrix K = dirichlet_laplacian(X, T);
  const VectorXd m = massmatrix(X, T).diagonal();
  for (Index v = 0; v < n; ++v) FASTCD_CHECK(m(v) > 0, "vertex ", v, " belongs to no element");
  const double q_bytes = 3.0 * 12.0 * squared_pattern_entries(K);  // the product, Q and Q_ff
  check_memory(dense + q_bytes, what, advice(dense + q_bytes));
  SparseMatrix Q = SparseMatrix(K * m.cwiseInverse().asDiagonal() * K);
  MatrixXd W = MatrixXd::Zero(n, h);
  for (Index v = 0; v < n; ++v)
    if (owner[v] >= 0) W(v, owner[v]) = 1.0;
  std::vector<Index> slot;
  const Index nf = keep_slots(n, Eigen::Map<const VectorXi>(pinned.data(), static_cast<Index>(pinned.size())), slot);
  if (nf == 0) return W;
  // Q_ff W_f = -Q_fb W_b
  MatrixXd rhs = MatrixXd::Zero(nf, h);
  for (Index c = 0; c < Q.outerSize(); ++c) {
    if (owner[c] < 0) continue;
    for (SparseMatrix::InnerIterator it(Q, c); it; ++it)
      if (slot[it.row()] >= 0) rhs(slot[it.row()], owner[c]) -= it.value();
  }
  SparseMatrix Qff = principal_submatrix(Q, slot, nf);
  Q = SparseMatrix();
  detail::throw_if_cancelled("biharmonic_weights");
  check_factor_memory(Qff, dense, what, advice);
  Eigen::SimplicialLDLT<SparseMatrix> solver(Qff);
  FASTCD_ENSURE(solver.info() == Eigen::Success,
                "the biharmonic system is singular (is every part of the mesh connected to a handle?)");
  detail::throw_if_cancelled("biharmonic_weights");
  const MatrixXd Wf = solver.solve(rhs);
  // The rows sum to 1 in exact arithmetic; the bi-Laplacian's conditioning leaves ~1e-11, which
  // would show as a rig that does not reproduce a common translation: divide it out.
  for (Index v = 0; v < n; ++v)
    if (slot[v] >= 0) W.row(v) = Wf.row(slot[v]) / Wf.row(slot[v]).sum();
  return W;
}

std::vector<Index> nearest_vertices_on_segment(const Eigen::Ref<const MatrixXd>& X, const Eigen::VectorXd& a,
                                               const Eigen::VectorXd& b, int samples) {
  FASTCD_CHECK(a.size() == X.cols() && b.size() == X.cols(), "segment ends must have ", X.cols(), " coordinates");
  FASTCD_CHECK(samples >= 1, "samples must be >= 1");
  std::vector<Index> out;
  for (int s = 0; s < samples; ++s) {
    const double t = samples == 1 ? 0.0 : double(s) / (samples - 1);
    const Eigen::RowVectorXd p = ((1 - t) * a + t * b).transpose();
    Index best = 0;
    (X.rowwise() - p).rowwise().squaredNorm().minCoeff(&best);
    if (std::find(out.begin(), out.end(), best) == out.end()) out.push_back(best);
  }
  return out;
}

}  // namespace fastcd
