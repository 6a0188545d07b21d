#include "fastcd/geometry/deformation_jacobian.hpp"

#include "fastcd/common/check.hpp"
#include "fastcd/geometry/simplex.hpp"

namespace fastcd {

SparseMatrix deformation_jacobian(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T) {
  check_mesh(X, T, "deformation_jacobian");
  return detail::dispatch_dim(X.cols(), "deformation_jacobian", [&]<int dim>() {
    std::vector<Triplet> trip;
    trip.reserve(static_cast<std::size_t>(T.rows()) * (dim + 1) * dim * dim);
    for (Index e = 0; e < T.rows(); ++e) {
      const auto grads = detail::shape_gradients<dim>(X, T, e, "deformation_jacobian");
      for (int a = 0; a <= dim; ++a)
        for (int i = 0; i < dim; ++i)
          for (int j = 0; j < dim; ++j) trip.emplace_back(e * dim * dim + i * dim + j, T(e, a) * dim + i, grads(a, j));
    }
    SparseMatrix G(T.rows() * dim * dim, X.rows() * dim);
    G.setFromTriplets(trip.begin(), trip.end());
    G.prune(0.0);  // exact zeros (axis-aligned edges) are not stored
    return G;
  });
}

}  // namespace fastcd
