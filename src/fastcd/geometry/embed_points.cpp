#include "fastcd/geometry/embed_points.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>

#include "fastcd/common/check.hpp"
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

/// Closest point to p on segment [a, b].
template <class V>
V closest_on_segment(const V& p, const V& a, const V& b) {
  const V ab = b - a;
  const double len2 = ab.squaredNorm();
  const double t = len2 > 0 ? std::clamp((p - a).dot(ab) / len2, 0.0, 1.0) : 0.0;
  return a + t * ab;
}

/// Closest point to p on triangle (a, b, c) in 3D (Ericson, Real-Time Collision Detection 5.1.5).
Eigen::Vector3d closest_on_triangle(const Eigen::Vector3d& p, const Eigen::Vector3d& a, const Eigen::Vector3d& b,
                                    const Eigen::Vector3d& c) {
  const Eigen::Vector3d ab = b - a, ac = c - a, ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) return a;
  const Eigen::Vector3d bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) return b;
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return a + (d1 / (d1 - d3)) * ab;
  const Eigen::Vector3d cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) return c;
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return a + (d2 / (d2 - d6)) * ac;
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) return b + ((d4 - d3) / ((d4 - d3) + (d5 - d6))) * (c - b);
  const double denom = 1.0 / (va + vb + vc);
  return a + ab * (vb * denom) + ac * (vc * denom);
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
      const Vec y = closest_on_segment<Vec>(x, corner(a), corner((a + 1) % 3));
      if ((y - x).squaredNorm() < bd) bd = (y - x).squaredNorm(), best = y;
    }
  } else {
    static constexpr int faces[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
    for (const auto& f : faces) {
      const Vec y = closest_on_triangle(x, corner(f[0]), corner(f[1]), corner(f[2]));
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
    // Uniform grid of buckets over the mesh box; each simplex is listed in the cells its box
    // overlaps.
    const Vec bmin = X.colwise().minCoeff().transpose(), bmax = X.colwise().maxCoeff().transpose();
    const int res = std::max(1, static_cast<int>(std::round(std::pow(double(nt), 1.0 / dim))));
    const Vec cell = ((bmax - bmin) / res).cwiseMax(1e-300);
    auto cell_of = [&](const Vec& x) {
      Eigen::Matrix<int, dim, 1> c;
      for (int k = 0; k < dim; ++k)
        c(k) = std::clamp(static_cast<int>(std::floor((x(k) - bmin(k)) / cell(k))), 0, res - 1);
      return c;
    };
    auto flat = [&](const Eigen::Matrix<int, dim, 1>& c) {
      Index f = 0;
      for (int k = dim - 1; k >= 0; --k) f = f * res + c(k);
      return f;
    };
    std::vector<std::vector<Index>> buckets(static_cast<std::size_t>(std::pow(res, dim)));
    for (Index e = 0; e < nt; ++e) {
      const auto c0 = cell_of(lo[e]), c1 = cell_of(hi[e]);
      Eigen::Matrix<int, dim, 1> c = c0;
      while (true) {
        buckets[flat(c)].push_back(e);
        int k = 0;
        while (k < dim && ++c(k) > c1(k)) c(k) = c0(k), ++k;
        if (k == dim) break;
      }
    }
    Embedding out;
    out.element.resize(P.rows());
    out.distance.resize(P.rows());
    std::vector<Triplet> trip;
    for (Index i = 0; i < P.rows(); ++i) {
      const Vec x = P.row(i).transpose();
      double best = std::numeric_limits<double>::infinity();
      Index best_e = -1;
      Eigen::Matrix<double, dim + 1, 1> best_b;
      auto consider = [&](Index e) {
        const Vec x0 = X.row(T(e, 0)).transpose();
        Eigen::Matrix<double, dim + 1, 1> b = barycentric<dim>(Dinv[e], x0, x);
        double dist = 0.0;
        if (b.minCoeff() < -1e-12) {  // outside: the closest point of the simplex
          const Vec y = closest_on_simplex<dim>(X, T, e, x);
          dist = (y - x).norm();
          b = barycentric<dim>(Dinv[e], x0, y).cwiseMax(0.0);
          b /= b.sum();
        }
        if (dist < best) {
          best = dist;
          best_e = e;
          best_b = b;
        }
      };
      const auto c = cell_of(x);
      const bool inside_box = ((x - bmin).array() >= 0).all() && ((bmax - x).array() >= 0).all();
      if (inside_box)
        for (Index e : buckets[flat(c)]) consider(e);
      if (best > 0)  // not inside any candidate: exhaustive nearest-simplex search
        for (Index e = 0; e < nt; ++e) consider(e);
      out.element(i) = static_cast<int>(best_e);
      out.distance(i) = best;
      for (int a = 0; a <= dim; ++a) trip.emplace_back(i, T(best_e, a), best_b(a));
    }
    out.E.resize(P.rows(), X.rows());
    out.E.setFromTriplets(trip.begin(), trip.end());
    return out;
  });
}

}  // namespace fastcd
