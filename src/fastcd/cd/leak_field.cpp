#include "fastcd/cd/leak_field.hpp"

#include "fastcd/common/check.hpp"
#include "fastcd/common/submatrix.hpp"
#include "fastcd/geometry/boundary_distance.hpp"
#include "fastcd/geometry/boundary_facets.hpp"
#include "fastcd/geometry/diffuse_field.hpp"
#include "fastcd/geometry/dirichlet_laplacian.hpp"
#include "fastcd/geometry/massmatrix.hpp"
#include "fastcd/geometry/volume.hpp"

#include <Eigen/SparseCholesky>
#include <algorithm>

namespace fastcd {

VectorXd momentum_leak_field(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                             const LeakFieldOptions& options) {
  check_mesh(X, T, "momentum_leak_field");
  if (options.kind == LeakFieldKind::None) return VectorXd::Ones(X.rows());
  if (options.kind == LeakFieldKind::Values) {
    FASTCD_CHECK(options.values.size() == X.rows(), "leak-field values: ", options.values.size(), " given for ",
                 X.rows(), " vertices");
    for (Index v = 0; v < X.rows(); ++v)
      FASTCD_CHECK(options.values(v) >= 0 && options.values(v) <= 1, "leak-field value ", v, " = ", options.values(v),
                   " is outside [0, 1]");
    return options.values;
  }
  if (options.kind == LeakFieldKind::Centroid) {
    const Index d = X.cols(), nt = T.rows();
    MatrixXd P = MatrixXd::Zero(nt, d);
    for (Index e = 0; e < nt; ++e) {
      for (Index a = 0; a <= d; ++a) P.row(e) += X.row(T(e, a));
      P.row(e) /= static_cast<double>(d + 1);
    }
    const VectorXd dist = distance_to_boundary(X, T, P);
    const double thickness = dist.maxCoeff();
    FASTCD_CHECK(thickness > 0, "the mesh has no thickness (every element centroid lies on its boundary)");
    const VectorXd vol = volume(X, T).cwiseAbs();
    VectorXd num = VectorXd::Zero(X.rows()), den = VectorXd::Zero(X.rows());
    for (Index e = 0; e < nt; ++e)
      for (Index a = 0; a <= d; ++a) {
        num(T(e, a)) += vol(e) * dist(e) / thickness;
        den(T(e, a)) += vol(e);
      }
    VectorXd D = VectorXd::Zero(X.rows());
    for (Index v = 0; v < X.rows(); ++v)
      if (den(v) > 0) D(v) = std::clamp(num(v) / den(v), 0.0, 1.0);
    return D;
  }
  const VectorXi bnd = boundary_vertices(T);
  if (options.kind == LeakFieldKind::Poisson) {
    // Torsion function: K phi = M 1 on interior vertices, phi = 0 on the boundary.
    const SparseMatrix K = dirichlet_laplacian(X, T);
    const VectorXd m = massmatrix(X, T).diagonal();
    std::vector<Index> slot;
    const Index ni = keep_slots(X.rows(), bnd, slot);
    VectorXd D = VectorXd::Zero(X.rows());
    if (ni == 0) return D;
    const SparseMatrix Kii = principal_submatrix(K, slot, ni);
    VectorXd rhs(ni);
    for (Index v = 0; v < X.rows(); ++v)
      if (slot[v] >= 0) rhs(slot[v]) = m(v);
    Eigen::SimplicialLDLT<SparseMatrix> solver(Kii);
    FASTCD_ENSURE(solver.info() == Eigen::Success, "the Poisson leak-field system is singular");
    const VectorXd phi = solver.solve(rhs);
    for (Index v = 0; v < X.rows(); ++v)
      if (slot[v] >= 0) D(v) = std::max(0.0, phi(slot[v]));
    const double mx = D.maxCoeff();
    if (mx > 0) D /= mx;
    return D;
  }
  const MatrixXd d = diffuse_field(X, T, bnd, MatrixXd::Ones(bnd.size(), 1), options.dt, true);
  return (1.0 - d.col(0).array()).matrix();
}

}  // namespace fastcd
