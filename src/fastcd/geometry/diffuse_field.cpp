#include "fastcd/geometry/diffuse_field.hpp"

#include <Eigen/SparseCholesky>
#include <cmath>

#include "fastcd/common/check.hpp"
#include "fastcd/geometry/dirichlet_laplacian.hpp"
#include "fastcd/geometry/massmatrix.hpp"

namespace fastcd {

namespace {
double mean_edge_length_squared(const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& T) {
  double sum = 0.0;
  Index count = 0;
  for (Index e = 0; e < T.rows(); ++e)
    for (Index a = 0; a < T.cols(); ++a)
      for (Index b = a + 1; b < T.cols(); ++b, ++count) sum += (V.row(T(e, a)) - V.row(T(e, b))).norm();
  const double mean = sum / static_cast<double>(count);
  return mean * mean;
}
}  // namespace

MatrixXd diffuse_field(const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& T,
                       const Eigen::Ref<const VectorXi>& bI, const Eigen::Ref<const MatrixXd>& phi,
                       std::optional<double> dt, bool normalize) {
  check_mesh(V, T, "diffuse_field");
  const Index n = V.rows();
  FASTCD_CHECK(phi.rows() == bI.size(), "phi must have one row per seed: bI has ", bI.size(), " entries, phi is ",
               shape_of(phi));
  FASTCD_CHECK(bI.size() > 0, "no seed vertices given");
  check_indices(bI, n, "bI", "diffuse_field");
  check_finite(phi, "phi", "diffuse_field");
  const double h = dt ? *dt : mean_edge_length_squared(V, T);
  FASTCD_CHECK(std::isfinite(h) && h > 0, "dt must be finite and > 0, got ", h);

  // Partition vertices into seeds (b) and the rest (i).
  std::vector<Index> slot(static_cast<std::size_t>(n), -1);  // position within i, or -1 for seeds
  for (Index k = 0; k < bI.size(); ++k) {
    FASTCD_CHECK(slot[bI(k)] != -2, "seed vertex ", bI(k), " is listed twice in bI");
    slot[bI(k)] = -2;
  }
  Index ni = 0;
  for (Index v = 0; v < n; ++v)
    if (slot[v] != -2) slot[v] = ni++;

  MatrixXd W = MatrixXd::Zero(n, phi.cols());
  for (Index k = 0; k < bI.size(); ++k) W.row(bI(k)) = phi.row(k);
  if (ni > 0) {
    const SparseMatrix Q = h * dirichlet_laplacian(V, T) + massmatrix(V, T);
    std::vector<Triplet> qii;
    MatrixXd rhs = MatrixXd::Zero(ni, phi.cols());
    for (Index c = 0; c < Q.outerSize(); ++c)
      for (SparseMatrix::InnerIterator it(Q, c); it; ++it) {
        const Index r = slot[it.row()];
        if (r < 0) continue;
        if (slot[c] >= 0)
          qii.emplace_back(r, slot[c], it.value());
        else
          rhs.row(r) -= it.value() * W.row(c);
      }
    SparseMatrix Qii(ni, ni);
    Qii.setFromTriplets(qii.begin(), qii.end());
    Eigen::SimplicialLDLT<SparseMatrix> solver(Qii);
    FASTCD_ENSURE(solver.info() == Eigen::Success,
                  "factorising the diffusion matrix failed (is every vertex in an element?)");
    const MatrixXd Wi = solver.solve(rhs);
    for (Index v = 0; v < n; ++v)
      if (slot[v] >= 0) W.row(v) = Wi.row(slot[v]);
  }
  if (normalize)
    for (Index j = 0; j < W.cols(); ++j) {
      const double lo = W.col(j).minCoeff(), hi = W.col(j).maxCoeff();
      if (hi > lo) W.col(j) = (W.col(j).array() - lo) / (hi - lo);
    }
  return W;
}

}  // namespace fastcd
