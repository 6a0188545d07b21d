#include "fastcd/geometry/harmonic_weights.hpp"

#include <Eigen/SparseCholesky>
#include <algorithm>
#include <cmath>
#include <vector>

#include "fastcd/common/cancel.hpp"
#include "fastcd/common/check.hpp"
#include "fastcd/common/memory.hpp"
#include "fastcd/common/submatrix.hpp"
#include "fastcd/geometry/dirichlet_laplacian.hpp"

namespace fastcd {

namespace {

/// What to do when carrying weights into a mesh needs `bytes`, `dense` of them in the dense
/// #V x #columns matrices (which grow with the columns, the sparse factor with the mesh).
std::string weight_advice(Index n, double dense, double bytes) {
  if (dense > 0.5 * bytes) return "use fewer handles (each is a weight column)";
  return coarser_mesh_advice(n, bytes);
}

}  // namespace

HarmonicExtension harmonic_extension(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                                     const Eigen::Ref<const VectorXi>& known,
                                     const Eigen::Ref<const MatrixXd>& W_known) {
  check_mesh(X, T, "harmonic_extension");
  const Index n = X.rows(), k = W_known.cols();
  FASTCD_CHECK(W_known.rows() == known.size(), "W_known has ", W_known.rows(), " rows for ", known.size(),
               " known vertices");
  FASTCD_CHECK(k >= 1, "W_known has no columns");
  FASTCD_CHECK(known.size() >= 1, "no known vertex");
  check_indices(known, n, "known", "harmonic_extension");
  check_finite(W_known, "W_known", "harmonic_extension");
  FASTCD_CHECK(W_known.minCoeff() >= 0, "W_known has a negative weight (", W_known.minCoeff(), ")");
  // Memory, refused before it is allocated: the weights, right-hand sides and solution (dense,
  // #V x #columns each) and the Laplacian's sparse factor.
  const std::string what = "carrying " + std::to_string(k) + " weight columns into " + std::to_string(n) + " vertices";
  const double dense = 3.0 * 8.0 * static_cast<double>(n) * static_cast<double>(k);
  const auto advice = [&](double bytes) { return weight_advice(n, dense, bytes); };
  check_memory(dense, what, advice(dense));
  HarmonicExtension out;
  out.W = MatrixXd::Zero(n, k);
  std::vector<char> given(static_cast<std::size_t>(n), 0);
  for (Index i = 0; i < known.size(); ++i) {
    FASTCD_CHECK(!given[static_cast<std::size_t>(known[i])], "vertex ", known[i], " is listed twice in known");
    given[static_cast<std::size_t>(known[i])] = 1;
    out.W.row(known[i]) = W_known.row(i);
  }
  std::vector<Index> slot;
  const Index nf = keep_slots(n, known, slot);
  if (nf == 0) return out;
  const SparseMatrix K = dirichlet_laplacian(X, T);
  MatrixXd rhs = MatrixXd::Zero(nf, k);
  for (Index c = 0; c < K.outerSize(); ++c) {
    if (!given[static_cast<std::size_t>(c)]) continue;
    for (SparseMatrix::InnerIterator it(K, c); it; ++it)
      if (slot[static_cast<std::size_t>(it.row())] >= 0)
        rhs.row(slot[static_cast<std::size_t>(it.row())]) -= it.value() * out.W.row(c);
  }
  detail::throw_if_cancelled("harmonic_extension");
  const SparseMatrix Kff = principal_submatrix(K, slot, nf);
  check_factor_memory(Kff, dense, what, advice);
  Eigen::SimplicialLDLT<SparseMatrix> solver(Kff);
  FASTCD_ENSURE(solver.info() == Eigen::Success && (solver.vectorD().array() > 0).all(),
                "the harmonic system is singular: part of the mesh touches no vertex with given weights");
  const MatrixXd Wf = solver.solve(rhs);
  FASTCD_ENSURE(Wf.allFinite(), "the harmonic solve produced non-finite weights");
  for (Index v = 0; v < n; ++v) {
    const Index s = slot[static_cast<std::size_t>(v)];
    if (s < 0) continue;
    Eigen::RowVectorXd w = Wf.row(s);
    for (Index j = 0; j < k; ++j)
      if (w[j] < 0) {
        out.most_negative = std::min(out.most_negative, w[j]);
        ++out.clamped;
        w[j] = 0;
      }
    const double sum = w.sum();
    FASTCD_ENSURE(sum > 0, "vertex ", v, " gets no positive harmonic weight");
    out.W.row(v) = w / sum;
  }
  return out;
}

HarmonicExtension harmonic_fit(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                               const SparseMatrix& E, const Eigen::Ref<const MatrixXd>& W_points, double fit) {
  check_mesh(X, T, "harmonic_fit");
  const Index n = X.rows(), k = W_points.cols();
  FASTCD_CHECK(E.cols() == n && E.rows() == W_points.rows(), "E is ", E.rows(), " x ", E.cols(), " for ",
               W_points.rows(), " points and ", n, " vertices");
  FASTCD_CHECK(k >= 1 && W_points.rows() >= 1, "no points or no columns");
  check_finite(W_points, "W_points", "harmonic_fit");
  FASTCD_CHECK(W_points.minCoeff() >= 0, "W_points has a negative weight (", W_points.minCoeff(), ")");
  FASTCD_CHECK(fit > 0 && std::isfinite(fit), "fit must be > 0, got ", fit);
  const std::string what = "fitting " + std::to_string(k) + " weight columns to " + std::to_string(n) + " vertices";
  const double dense = 3.0 * 8.0 * static_cast<double>(n) * static_cast<double>(k);
  const auto advice = [&](double bytes) { return weight_advice(n, dense, bytes); };
  check_memory(dense, what, advice(dense));
  // Smoothness: the Dirichlet energy (it pulls the fit towards constants between the points,
  // so weights are slightly flattened, never overshoot wildly: the squared Laplacian, which keeps
  // affine fields, gave Fox weights down to -215 in a 24-cell grid).
  const SparseMatrix K = dirichlet_laplacian(X, T);
  const SparseMatrix EtE = SparseMatrix(E.transpose()) * E;
  double tk = 0, te = 0;
  for (Index i = 0; i < n; ++i) {
    tk += K.coeff(i, i);
    te += EtE.coeff(i, i);
  }
  FASTCD_CHECK(te > 0, "the points touch no vertex");
  const double lambda = fit * tk / te;
  const SparseMatrix A = K + lambda * EtE;
  check_factor_memory(A, dense, what, advice);
  Eigen::SimplicialLDLT<SparseMatrix> ldlt(A);
  FASTCD_ENSURE(ldlt.info() == Eigen::Success,
                "harmonic_fit: the system is singular (a part of the mesh holds no point)");
  detail::throw_if_cancelled("harmonic_fit");
  HarmonicExtension out;
  out.W = ldlt.solve(MatrixXd(lambda * (SparseMatrix(E.transpose()) * W_points)));
  FASTCD_ENSURE(ldlt.info() == Eigen::Success && out.W.allFinite(),
                "harmonic_fit: the solve failed (a part of the mesh holds no point)");
  for (Index i = 0; i < n; ++i) {
    for (Index c = 0; c < k; ++c)
      if (out.W(i, c) < 0) {
        out.most_negative = std::min(out.most_negative, out.W(i, c));
        out.W(i, c) = 0;
        ++out.clamped;
      }
    const double sum = out.W.row(i).sum();
    FASTCD_ENSURE(sum > 0, "harmonic_fit: vertex ", i, " gets no weight (a part of the mesh holds no point)");
    out.W.row(i) /= sum;
  }
  out.fit_error = (MatrixXd(E * out.W) - W_points).cwiseAbs().maxCoeff();
  return out;
}

}  // namespace fastcd
