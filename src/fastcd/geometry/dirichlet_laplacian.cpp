#include "fastcd/geometry/dirichlet_laplacian.hpp"

#include <cmath>

#include "fastcd/common/check.hpp"
#include "fastcd/geometry/massmatrix.hpp"
#include "fastcd/geometry/simplex.hpp"

namespace fastcd {

SparseMatrix dirichlet_laplacian(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                                 const Eigen::Ref<const VectorXd>& mu, bool vector) {
  check_mesh(X, T, "dirichlet_laplacian");
  FASTCD_CHECK(mu.size() == T.rows(), "mu must be a scalar or #T = ", T.rows(), " values, got ", mu.size());
  check_finite(mu, "mu", "dirichlet_laplacian");
  SparseMatrix K = detail::dispatch_dim(X.cols(), "dirichlet_laplacian", [&]<int dim>() {
    std::vector<Triplet> trip;
    trip.reserve(static_cast<std::size_t>(T.rows()) * (dim + 1) * (dim + 1));
    for (Index e = 0; e < T.rows(); ++e) {
      const auto g = detail::shape_gradients<dim>(X, T, e, "dirichlet_laplacian");
      const double w = mu(e) * std::abs(detail::signed_measure<dim>(X, T, e));
      const Eigen::Matrix<double, dim + 1, dim + 1> Ke = w * g * g.transpose();
      for (int a = 0; a <= dim; ++a)
        for (int b = 0; b <= dim; ++b) trip.emplace_back(T(e, a), T(e, b), Ke(a, b));
    }
    SparseMatrix Ks(X.rows(), X.rows());
    Ks.setFromTriplets(trip.begin(), trip.end());
    return Ks;
  });
  return vector ? kron_identity(K, X.cols()) : K;
}

SparseMatrix dirichlet_laplacian(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T, double mu,
                                 bool vector) {
  return dirichlet_laplacian(X, T, VectorXd::Constant(T.rows(), mu), vector);
}

}  // namespace fastcd
