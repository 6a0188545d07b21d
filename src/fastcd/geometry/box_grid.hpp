#pragma once
// BoxGrid: a uniform grid of buckets over axis-aligned item boxes, answering "the item nearest to
// a point" by searching rings of cells outward until no farther cell can hold a closer item
// (internal helper of embed_points and distance_to_boundary).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <Eigen/Core>

namespace fastcd::detail {

template <int dim>
class BoxGrid {
 public:
  using Vec = Eigen::Matrix<double, dim, 1>;
  using Cell = Eigen::Matrix<int, dim, 1>;

  /// Items with boxes [lo[k], hi[k]], in a grid of about #items cells over [bmin, bmax].
  BoxGrid(const std::vector<Vec>& lo, const std::vector<Vec>& hi, const Vec& bmin, const Vec& bmax)
      : bmin_(bmin), stamp_(lo.size(), -1) {
    const double n = static_cast<double>(std::max<std::size_t>(1, lo.size()));
    res_ = std::max(1, static_cast<int>(std::round(std::pow(n, 1.0 / dim))));
    cell_ = ((bmax - bmin) / res_).cwiseMax(1e-300);
    buckets_.resize(static_cast<std::size_t>(std::pow(res_, dim)));
    for (std::size_t e = 0; e < lo.size(); ++e) {
      const Cell c0 = cell_of(lo[e]), c1 = cell_of(hi[e]);
      Cell c = c0;
      while (true) {
        buckets_[flat(c)].push_back(static_cast<Eigen::Index>(e));
        int k = 0;
        while (k < dim && ++c(k) > c1(k)) c(k) = c0(k), ++k;
        if (k == dim) break;
      }
    }
  }

  /// The item minimising dist(item) >= 0, where dist(item) is at least the distance from x to
  /// the item's box (a lower bound the search relies on); ties go to the lowest index.
  /// `query` must differ between calls (it marks the items already measured). Returns
  /// {item, distance}; item -1 when there are no items.
  template <class Dist>
  std::pair<Eigen::Index, double> nearest(const Vec& x, Eigen::Index query, const Dist& dist) {
    double best = std::numeric_limits<double>::infinity();
    Eigen::Index best_e = -1;
    const Cell c = cell_of(x);
    for (int r = 0;; ++r) {
      Cell lo_c, hi_c;
      for (int k = 0; k < dim; ++k) lo_c(k) = std::max(0, c(k) - r), hi_c(k) = std::min(res_ - 1, c(k) + r);
      Cell q = lo_c;
      while (true) {
        if ((q - c).cwiseAbs().maxCoeff() == r)  // the ring itself; the inside was searched
          for (Eigen::Index e : buckets_[flat(q)]) {
            if (stamp_[static_cast<std::size_t>(e)] == query) continue;
            stamp_[static_cast<std::size_t>(e)] = query;
            const double d = dist(e);
            if (d < best || (d == best && e < best_e)) best = d, best_e = e;
          }
        int k = 0;
        while (k < dim && ++q(k) > hi_c(k)) q(k) = lo_c(k), ++k;
        if (k == dim) break;
      }
      if (best == 0.0) break;
      // Distance from x to the cells not searched yet (a side at the grid's edge has nothing
      // beyond it).
      double gap = std::numeric_limits<double>::infinity();
      for (int k = 0; k < dim; ++k) {
        if (lo_c(k) > 0) gap = std::min(gap, x(k) - (bmin_(k) + lo_c(k) * cell_(k)));
        if (hi_c(k) < res_ - 1) gap = std::min(gap, bmin_(k) + (hi_c(k) + 1) * cell_(k) - x(k));
      }
      if (best <= gap || gap == std::numeric_limits<double>::infinity()) break;
    }
    return {best_e, best};
  }

 private:
  Cell cell_of(const Vec& x) const {
    Cell c;
    for (int k = 0; k < dim; ++k)
      c(k) = std::clamp(static_cast<int>(std::floor((x(k) - bmin_(k)) / cell_(k))), 0, res_ - 1);
    return c;
  }
  std::size_t flat(const Cell& c) const {
    std::size_t f = 0;
    for (int k = dim - 1; k >= 0; --k) f = f * static_cast<std::size_t>(res_) + static_cast<std::size_t>(c(k));
    return f;
  }

  Vec bmin_, cell_;
  int res_ = 1;
  std::vector<std::vector<Eigen::Index>> buckets_;
  std::vector<Eigen::Index> stamp_;
};

}  // namespace fastcd::detail
