#include "fastcd/cd/leak_field.hpp"

#include "fastcd/common/check.hpp"
#include "fastcd/geometry/boundary_facets.hpp"
#include "fastcd/geometry/diffuse_field.hpp"

namespace fastcd {

VectorXd momentum_leak_field(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                             const LeakFieldOptions& options) {
  check_mesh(X, T, "momentum_leak_field");
  if (options.kind == LeakFieldKind::None) return VectorXd::Ones(X.rows());
  const VectorXi bnd = boundary_vertices(T);
  const MatrixXd d = diffuse_field(X, T, bnd, MatrixXd::Ones(bnd.size(), 1), options.dt, true);
  return (1.0 - d.col(0).array()).matrix();
}

}  // namespace fastcd
