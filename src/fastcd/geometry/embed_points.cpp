#include "fastcd/geometry/embed_points.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>

#include "fastcd/common/cancel.hpp"
#include "fastcd/common/check.hpp"
#include "fastcd/geometry/box_grid.hpp"
#include "fastcd/geometry/closest_point.hpp"
#include "fastcd/geometry/simplex.hpp"

namespace fastcd {

namespace {

/// Barycentric coordinates of point x in simplex e (last dim coordinates from the inverse
/// edge matrix, the first from the partition of unity).
template <int dim>
Eigen::Matrix<double, dim + 1, 1> barycentric(const Eigen::Matrix<double, dim, dim>& Dinv,
                                              const Eigen::Matrix<double, dim, 1>& x0,
                                              const Eigen::Matrix<double, dim, 1>& x) {
  Eigen::Matrix<double, dim + 1, 1> b;
  b.template tail<dim>() = Dinv * (x - x0);
  b(0) = 1.0 - b.template tail<dim>().sum();
  return b;
}

/// Closest point to x on the boundary of simplex e (x is known to be outside it).
template <int dim>
Eigen::Matrix<double, dim, 1> closest_on_simplex(const Eigen::Ref<const MatrixXd>& X,
                                                 const Eigen::Ref<const MatrixXi>& T, Index e,
                                                 const Eigen::Matrix<double, dim, 1>& x) {
  using Vec = Eigen::Matrix<double, dim, 1>;
  auto corner = [&](int a) -> Vec { return X.row(T(e, a)).transpose(); };
  Vec best = corner(0);
  double bd = std::numeric_limits<double>::infinity();
  if constexpr (dim == 2) {
    for (int a = 0; a < 3; ++a) {
      const Vec y = detail::closest_on_segment<Vec>(x, corner(a), corner((a + 1) % 3));
      if ((y - x).squaredNorm() < bd) bd = (y - x).squaredNorm(), best = y;
    }
  } else {
    static constexpr int faces[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
    for (const auto& f : faces) {
      const Vec y = detail::closest_on_triangle(x, corner(f[0]), corner(f[1]), corner(f[2]));
      if ((y - x).squaredNorm() < bd) bd = (y - x).squaredNorm(), best = y;
    }
  }
  return best;
}

}  // namespace

Embedding embed_points(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                       const Eigen::Ref<const MatrixXd>& P) {
  check_mesh(X, T, "embed_points");
  FASTCD_CHECK(P.cols() == X.cols(), "points must be #P x ", X.cols(), ", got ", shape_of(P));
  check_finite(P, "P", "embed_points");
  return detail::dispatch_dim(X.cols(), "embed_points", [&]<int dim>() {
    using detail::BoxGrid;
    using Vec = Eigen::Matrix<double, dim, 1>;
    using Mat = Eigen::Matrix<double, dim, dim>;
    const Index nt = T.rows();
    std::vector<Mat> Dinv(static_cast<std::size_t>(nt));
    std::vector<Vec> lo(static_cast<std::size_t>(nt)), hi(static_cast<std::size_t>(nt));
    for (Index e = 0; e < nt; ++e) {
      detail::shape_gradients<dim>(X, T, e, "embed_points");  // throws on degenerate elements
      Dinv[e] = detail::edge_matrix<dim>(X, T, e).inverse();
      lo[e] = hi[e] = X.row(T(e, 0)).transpose();
      for (int a = 1; a <= dim; ++a) {
        lo[e] = lo[e].cwiseMin(X.row(T(e, a)).transpose());
        hi[e] = hi[e].cwiseMax(X.row(T(e, a)).transpose());
      }
    }
    BoxGrid<dim> grid(lo, hi, X.colwise().minCoeff().transpose(), X.colwise().maxCoeff().transpose());
    Embedding out;
    out.element.resize(P.rows());
    out.distance.resize(P.rows());
    std::vector<Triplet> trip;
    for (Index i = 0; i < P.rows(); ++i) {
      if ((i & 1023) == 0) detail::throw_if_cancelled("embed_points");
      const Vec x = P.row(i).transpose();
      // Inside: distance 0; outside: the distance to the simplex's closest point (never less
      // than the distance to its box, as the grid search needs).
      const auto [e, dist] = grid.nearest(x, i, [&](Index e) {
        const Eigen::Matrix<double, dim + 1, 1> b = barycentric<dim>(Dinv[e], X.row(T(e, 0)).transpose(), x);
        return b.minCoeff() < -1e-12 ? (closest_on_simplex<dim>(X, T, e, x) - x).norm() : 0.0;
      });
      out.element(i) = static_cast<int>(e);
      out.distance(i) = dist;
      // The point's own barycentric coordinates in that simplex (outside it they extrapolate):
      // E X reproduces the point exactly; it is never moved onto the mesh.
      const Eigen::Matrix<double, dim + 1, 1> b = barycentric<dim>(Dinv[e], X.row(T(e, 0)).transpose(), x);
      for (int a = 0; a <= dim; ++a) trip.emplace_back(i, T(e, a), b(a));
    }
    out.E.resize(P.rows(), X.rows());
    out.E.setFromTriplets(trip.begin(), trip.end());
    return out;
  });
}

}  // namespace fastcd
