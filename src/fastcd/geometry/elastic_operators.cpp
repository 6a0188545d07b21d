#include "fastcd/geometry/elastic_operators.hpp"

#include <cmath>

#include "fastcd/common/check.hpp"
#include "fastcd/geometry/deformation_jacobian.hpp"
#include "fastcd/geometry/massmatrix.hpp"
#include "fastcd/geometry/stiffness_matrix.hpp"
#include "fastcd/geometry/volume.hpp"
#include "fastcd/geometry/ympr_to_lame.hpp"

namespace fastcd {

ElasticOperators elastic_operators(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T, double ym,
                                   double pr, double rho) {
  check_mesh(X, T, "elastic_operators");
  FASTCD_CHECK(rho > 0 && std::isfinite(rho), "density must be finite and > 0, got ", rho);
  ElasticOperators op;
  op.dim = X.cols();
  op.mu = ympr_to_lame(ym, pr).first;
  op.G = deformation_jacobian(X, T);  // checks degenerate elements
  op.Mv = kron_identity(massmatrix(X, T, rho), op.dim);
  op.vol = volume(X, T).cwiseAbs();
  op.mu_vol = op.mu * op.vol;
  op.AMu = sparse_diagonal(op.mu_vol);
  op.AMue = sparse_diagonal(op.mu_vol.replicate(1, op.dim * op.dim).transpose().reshaped());
  op.L = stiffness_matrix(op.G, op.mu_vol, op.dim);  // the one construction both solvers factor
  return op;
}

}  // namespace fastcd
