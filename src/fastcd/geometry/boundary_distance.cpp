#include "fastcd/geometry/boundary_distance.hpp"

#include <vector>

#include "fastcd/common/cancel.hpp"
#include "fastcd/common/check.hpp"
#include "fastcd/geometry/boundary_facets.hpp"
#include "fastcd/geometry/box_grid.hpp"
#include "fastcd/geometry/closest_point.hpp"
#include "fastcd/geometry/simplex.hpp"

namespace fastcd {

VectorXd distance_to_boundary(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                              const Eigen::Ref<const MatrixXd>& P) {
  check_mesh(X, T, "distance_to_boundary");
  FASTCD_CHECK(P.cols() == X.cols(), "points must be #P x ", X.cols(), ", got ", shape_of(P));
  check_finite(P, "P", "distance_to_boundary");
  const MatrixXi F = boundary_facets(T).F;
  return detail::dispatch_dim(X.cols(), "distance_to_boundary", [&]<int dim>() -> VectorXd {
    using Vec = Eigen::Matrix<double, dim, 1>;
    const Index nf = F.rows();
    std::vector<Vec> lo(static_cast<std::size_t>(nf)), hi(static_cast<std::size_t>(nf));
    for (Index f = 0; f < nf; ++f) {
      lo[f] = hi[f] = X.row(F(f, 0)).transpose();
      for (int a = 1; a < dim; ++a) {
        lo[f] = lo[f].cwiseMin(X.row(F(f, a)).transpose());
        hi[f] = hi[f].cwiseMax(X.row(F(f, a)).transpose());
      }
    }
    detail::BoxGrid<dim> grid(lo, hi, X.colwise().minCoeff().transpose(), X.colwise().maxCoeff().transpose());
    VectorXd out(P.rows());
    for (Index i = 0; i < P.rows(); ++i) {
      if ((i & 1023) == 0) detail::throw_if_cancelled("distance_to_boundary");
      const Vec x = P.row(i).transpose();
      out(i) = grid.nearest(x, i,
                            [&](Index f) {
                              if constexpr (dim == 2) {
                                const Vec a = X.row(F(f, 0)).transpose(), b = X.row(F(f, 1)).transpose();
                                return (detail::closest_on_segment<Vec>(x, a, b) - x).norm();
                              } else {
                                const Vec a = X.row(F(f, 0)).transpose(), b = X.row(F(f, 1)).transpose(),
                                          c = X.row(F(f, 2)).transpose();
                                return (detail::closest_on_triangle(x, a, b, c) - x).norm();
                              }
                            })
                   .second;
    }
    return out;
  });
}

}  // namespace fastcd
