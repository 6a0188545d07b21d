#include "fastcd/meshing/surface.hpp"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "fastcd/common/check.hpp"

namespace fastcd {

namespace {

struct CellHash {
  std::size_t operator()(const std::array<std::int64_t, 3>& k) const {
    std::uint64_t h = 1469598103934665603ull;
    for (std::int64_t v : k) h = (h ^ static_cast<std::uint64_t>(v)) * 1099511628211ull;
    return static_cast<std::size_t>(h);
  }
};

void check_triangles(const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& F, const char* where) {
  if (V.cols() != 3) throw std::invalid_argument(std::string(where) + ": V must be #V x 3, got " + shape_of(V));
  if (F.cols() != 3) throw std::invalid_argument(std::string(where) + ": F must be #F x 3, got " + shape_of(F));
  check_finite(V, "V", where);
  if (F.size() && (F.minCoeff() < 0 || F.maxCoeff() >= V.rows()))
    throw std::invalid_argument(std::string(where) + ": F has an index outside [0, " + std::to_string(V.rows()) + ")");
}

std::array<int, 2> edge_key(int a, int b) { return {std::min(a, b), std::max(a, b)}; }

}  // namespace

WeldedSurface weld_surface(const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& F, double tolerance) {
  check_triangles(V, F, "weld_surface");
  FASTCD_CHECK(std::isfinite(tolerance), "tolerance must be finite");
  const Index n = V.rows();
  if (tolerance < 0 && n > 0) tolerance = 1e-6 * (V.colwise().maxCoeff() - V.colwise().minCoeff()).norm();
  WeldedSurface w;
  w.map.resize(n);
  std::vector<Index> reps;
  if (tolerance > 0) {
    const Eigen::RowVector3d lo = n ? Eigen::RowVector3d(V.colwise().minCoeff()) : Eigen::RowVector3d::Zero();
    std::unordered_map<std::array<std::int64_t, 3>, std::vector<int>, CellHash> cells;
    auto cell_of = [&](Index v) {
      std::array<std::int64_t, 3> k{};
      for (int c = 0; c < 3; ++c)
        k[static_cast<std::size_t>(c)] = static_cast<std::int64_t>(std::floor((V(v, c) - lo[c]) / tolerance));
      return k;
    };
    const double tol2 = tolerance * tolerance;
    for (Index v = 0; v < n; ++v) {
      const auto k = cell_of(v);
      int found = -1;
      for (int dx = -1; dx <= 1 && found < 0; ++dx)
        for (int dy = -1; dy <= 1 && found < 0; ++dy)
          for (int dz = -1; dz <= 1 && found < 0; ++dz) {
            const auto it = cells.find({k[0] + dx, k[1] + dy, k[2] + dz});
            if (it == cells.end()) continue;
            for (int r : it->second)
              if ((V.row(reps[static_cast<std::size_t>(r)]) - V.row(v)).squaredNorm() <= tol2) {
                found = r;
                break;
              }
          }
      if (found < 0) {
        found = static_cast<int>(reps.size());
        reps.push_back(v);
        cells[k].push_back(found);
      }
      w.map[v] = found;
    }
  } else {
    std::unordered_map<std::array<std::int64_t, 3>, int, CellHash> exact;
    for (Index v = 0; v < n; ++v) {
      std::array<std::int64_t, 3> k{};
      for (int c = 0; c < 3; ++c) {
        const double x = V(v, c) == 0 ? 0.0 : V(v, c);  // -0 and +0 are one position
        std::memcpy(&k[static_cast<std::size_t>(c)], &x, sizeof x);
      }
      const auto [it, inserted] = exact.try_emplace(k, static_cast<int>(reps.size()));
      if (inserted) reps.push_back(v);
      w.map[v] = it->second;
    }
  }
  w.V.resize(static_cast<Index>(reps.size()), 3);
  for (std::size_t r = 0; r < reps.size(); ++r) w.V.row(static_cast<Index>(r)) = V.row(reps[r]);

  std::unordered_set<std::array<std::int64_t, 3>, CellHash> seen;
  std::vector<std::array<int, 3>> tris;
  std::vector<int> from;
  for (Index f = 0; f < F.rows(); ++f) {
    const int a = w.map[F(f, 0)], b = w.map[F(f, 1)], c = w.map[F(f, 2)];
    if (a == b || b == c || a == c) {
      ++w.collapsed;
      continue;
    }
    std::array<std::int64_t, 3> key{a, b, c};
    std::sort(key.begin(), key.end());
    if (!seen.insert(key).second) {
      ++w.duplicates;
      continue;
    }
    tris.push_back({a, b, c});
    from.push_back(static_cast<int>(f));
  }
  w.F.resize(static_cast<Index>(tris.size()), 3);
  w.face.resize(static_cast<Index>(tris.size()));
  for (std::size_t t = 0; t < tris.size(); ++t) {
    for (int k = 0; k < 3; ++k) w.F(static_cast<Index>(t), k) = tris[t][static_cast<std::size_t>(k)];
    w.face[static_cast<Index>(t)] = from[t];
  }
  return w;
}

namespace {

// Point p (on the plane of a, b, c) inside the closed triangle, with a relative tolerance.
bool in_triangle(const Eigen::Vector3d& p, const Eigen::Vector3d& a, const Eigen::Vector3d& b, const Eigen::Vector3d& c,
                 const Eigen::Vector3d& n) {
  const double nn = n.squaredNorm();
  const double eps = -1e-12 * nn;
  return (b - a).cross(p - a).dot(n) >= eps && (c - b).cross(p - b).dot(n) >= eps && (a - c).cross(p - c).dot(n) >= eps;
}

// 2D segment intersection (closed) on the plane dropping axis `drop`.
bool segments_intersect_2d(const Eigen::Vector3d& p0, const Eigen::Vector3d& p1, const Eigen::Vector3d& q0,
                           const Eigen::Vector3d& q1, int drop) {
  const int i = (drop + 1) % 3, j = (drop + 2) % 3;
  auto orient = [&](const Eigen::Vector3d& a, const Eigen::Vector3d& b, const Eigen::Vector3d& c) {
    return (b[i] - a[i]) * (c[j] - a[j]) - (b[j] - a[j]) * (c[i] - a[i]);
  };
  const double d1 = orient(q0, q1, p0), d2 = orient(q0, q1, p1), d3 = orient(p0, p1, q0), d4 = orient(p0, p1, q1);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return true;
  auto on = [&](const Eigen::Vector3d& a, const Eigen::Vector3d& b, const Eigen::Vector3d& c, double d) {
    return d == 0 && std::min(a[i], b[i]) <= c[i] && c[i] <= std::max(a[i], b[i]) && std::min(a[j], b[j]) <= c[j] &&
           c[j] <= std::max(a[j], b[j]);
  };
  return on(q0, q1, p0, d1) || on(q0, q1, p1, d2) || on(p0, p1, q0, d3) || on(p0, p1, q1, d4);
}

// Does the closed segment p0-p1 meet the closed triangle (a, b, c) with normal n?
bool segment_meets_triangle(const Eigen::Vector3d& p0, const Eigen::Vector3d& p1, const Eigen::Vector3d& a,
                            const Eigen::Vector3d& b, const Eigen::Vector3d& c, const Eigen::Vector3d& n) {
  const double d0 = n.dot(p0 - a), d1 = n.dot(p1 - a);
  if ((d0 > 0 && d1 > 0) || (d0 < 0 && d1 < 0)) return false;
  if (d0 == d1) return false;  // coplanar: handled by the caller
  const double t = d0 / (d0 - d1);
  return in_triangle(p0 + t * (p1 - p0), a, b, c, n);
}

}  // namespace

bool triangles_intersect(const Eigen::Vector3d& a0, const Eigen::Vector3d& a1, const Eigen::Vector3d& a2,
                         const Eigen::Vector3d& b0, const Eigen::Vector3d& b1, const Eigen::Vector3d& b2) {
  const Eigen::Vector3d na = (a1 - a0).cross(a2 - a0), nb = (b1 - b0).cross(b2 - b0);
  // Coplanar (within rounding of the sizes involved): 2D edge crossings and containment.
  const double scale = std::max({(a1 - a0).norm(), (a2 - a0).norm(), (b1 - b0).norm(), (b2 - b0).norm()});
  const double tol = 1e-12 * scale * na.norm();
  const bool coplanar =
      std::abs(na.dot(b0 - a0)) <= tol && std::abs(na.dot(b1 - a0)) <= tol && std::abs(na.dot(b2 - a0)) <= tol;
  if (coplanar) {
    int drop = 0;
    na.cwiseAbs().maxCoeff(&drop);
    const std::array<const Eigen::Vector3d*, 3> A{&a0, &a1, &a2}, B{&b0, &b1, &b2};
    for (int e = 0; e < 3; ++e)
      for (int g = 0; g < 3; ++g)
        if (segments_intersect_2d(*A[static_cast<std::size_t>(e)], *A[static_cast<std::size_t>((e + 1) % 3)],
                                  *B[static_cast<std::size_t>(g)], *B[static_cast<std::size_t>((g + 1) % 3)], drop))
          return true;
    return in_triangle(a0, b0, b1, b2, nb) || in_triangle(b0, a0, a1, a2, na);
  }
  // General position: the intersection segment's ends lie on edges of one of the triangles.
  return segment_meets_triangle(a0, a1, b0, b1, b2, nb) || segment_meets_triangle(a1, a2, b0, b1, b2, nb) ||
         segment_meets_triangle(a2, a0, b0, b1, b2, nb) || segment_meets_triangle(b0, b1, a0, a1, a2, na) ||
         segment_meets_triangle(b1, b2, a0, a1, a2, na) || segment_meets_triangle(b2, b0, a0, a1, a2, na);
}

SurfaceDefects check_surface(const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& F,
                             Index max_reported) {
  check_triangles(V, F, "check_surface");
  SurfaceDefects d;
  const Index nf = F.rows();
  const auto cap = static_cast<std::size_t>(std::max<Index>(max_reported, 0));
  // Edges: (key, face, forward) sorted by key.
  struct HalfEdge {
    std::array<int, 2> key;
    int face;
    bool forward;
  };
  std::vector<HalfEdge> he;
  he.reserve(static_cast<std::size_t>(3 * nf));
  for (Index f = 0; f < nf; ++f)
    for (int k = 0; k < 3; ++k) {
      const int a = F(f, k), b = F(f, (k + 1) % 3);
      he.push_back({edge_key(a, b), static_cast<int>(f), a < b});
    }
  std::sort(he.begin(), he.end(),
            [](const HalfEdge& x, const HalfEdge& y) { return x.key != y.key ? x.key < y.key : x.face < y.face; });
  std::vector<int> parent(static_cast<std::size_t>(nf));
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int x) {
    while (parent[static_cast<std::size_t>(x)] != x)
      x = parent[static_cast<std::size_t>(x)] = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(x)])];
    return x;
  };
  for (std::size_t i = 0; i < he.size();) {
    std::size_t j = i;
    while (j < he.size() && he[j].key == he[i].key) ++j;
    const std::size_t count = j - i;
    if (count == 1) {
      if (d.open_edges.size() < cap) d.open_edges.push_back(he[i].key);
    } else if (count > 2) {
      if (d.non_manifold_edges.size() < cap) d.non_manifold_edges.push_back(he[i].key);
    } else if (he[i].forward == he[i + 1].forward) {
      if (d.flipped_edges.size() < cap) d.flipped_edges.push_back(he[i].key);
    }
    for (std::size_t k = i + 1; k < j; ++k) parent[static_cast<std::size_t>(find(he[k].face))] = find(he[i].face);
    i = j;
  }
  for (Index f = 0; f < nf; ++f) {
    if (find(static_cast<int>(f)) == f) ++d.components;
    const Eigen::Vector3d a = V.row(F(f, 0)), b = V.row(F(f, 1)), c = V.row(F(f, 2));
    d.volume += a.dot(b.cross(c)) / 6;
  }

  // Self-intersections: triangles binned by bounding box on a grid of ~nf cells; a pair is
  // tested only in the lowest cell both boxes cover.
  if (nf < 2 || cap == 0) return d;
  MatrixXd lo(nf, 3), hi(nf, 3);
  for (Index f = 0; f < nf; ++f) {
    lo.row(f) = V.row(F(f, 0)).cwiseMin(V.row(F(f, 1))).cwiseMin(V.row(F(f, 2)));
    hi.row(f) = V.row(F(f, 0)).cwiseMax(V.row(F(f, 1))).cwiseMax(V.row(F(f, 2)));
  }
  const Eigen::RowVector3d glo = lo.colwise().minCoeff(), ghi = hi.colwise().maxCoeff();
  const double mean_extent = (hi - lo).rowwise().maxCoeff().mean();
  double cell = std::max(mean_extent, 1e-12 * std::max(1.0, (ghi - glo).maxCoeff()));
  // At most ~8 nf cells in all.
  const Eigen::RowVector3d span = ghi - glo;
  while ((span.array() / cell + 1).prod() > 8.0 * static_cast<double>(nf) + 64) cell *= 1.5;
  auto cell_index = [&](double x, int axis) { return static_cast<std::int64_t>(std::floor((x - glo[axis]) / cell)); };
  std::unordered_map<std::array<std::int64_t, 3>, std::vector<int>, CellHash> grid;
  for (Index f = 0; f < nf; ++f)
    for (std::int64_t x = cell_index(lo(f, 0), 0); x <= cell_index(hi(f, 0), 0); ++x)
      for (std::int64_t y = cell_index(lo(f, 1), 1); y <= cell_index(hi(f, 1), 1); ++y)
        for (std::int64_t z = cell_index(lo(f, 2), 2); z <= cell_index(hi(f, 2), 2); ++z)
          grid[{x, y, z}].push_back(static_cast<int>(f));
  for (const auto& [key, faces] : grid) {
    for (std::size_t i = 0; i < faces.size(); ++i)
      for (std::size_t j = i + 1; j < faces.size(); ++j) {
        const int f = faces[i], g = faces[j];
        // Only in the lowest common cell.
        bool lowest = true;
        for (int a = 0; a < 3 && lowest; ++a)
          lowest = key[static_cast<std::size_t>(a)] == cell_index(std::max(lo(f, a), lo(g, a)), a);
        if (!lowest) continue;
        if ((lo.row(f).array() > hi.row(g).array()).any() || (lo.row(g).array() > hi.row(f).array()).any()) continue;
        bool shared = false;
        for (int a = 0; a < 3; ++a)
          for (int b = 0; b < 3; ++b) shared = shared || F(f, a) == F(g, b);
        if (shared) continue;
        if (triangles_intersect(V.row(F(f, 0)), V.row(F(f, 1)), V.row(F(f, 2)), V.row(F(g, 0)), V.row(F(g, 1)),
                                V.row(F(g, 2)))) {
          d.intersecting.push_back({std::min(f, g), std::max(f, g)});
          if (d.intersecting.size() >= cap) {
            std::sort(d.intersecting.begin(), d.intersecting.end());
            return d;
          }
        }
      }
  }
  std::sort(d.intersecting.begin(), d.intersecting.end());
  return d;
}

std::string SurfaceDefects::describe() const {
  if (ok()) return "";
  std::ostringstream os;
  const char* sep = "";
  auto list = [&](const char* what, const std::vector<std::array<int, 2>>& v, const char* pair) {
    if (v.empty()) return;
    os << sep << v.size() << (v.size() >= 20 ? "+ " : " ") << what << " (";
    for (std::size_t i = 0; i < std::min<std::size_t>(v.size(), 5); ++i)
      os << (i ? ", " : "") << pair << " " << v[i][0] << "-" << v[i][1];
    os << (v.size() > 5 ? ", ..." : "") << ")";
    sep = "; ";
  };
  list("open edges: the surface has holes", open_edges, "vertices");
  list("non-manifold edges: more than two triangles meet", non_manifold_edges, "vertices");
  list("inconsistently oriented edges: neighbouring triangles wind opposite ways", flipped_edges, "vertices");
  list("self-intersections", intersecting, "triangles");
  return os.str();
}

VectorXd min_dihedral_angles(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T) {
  FASTCD_CHECK(X.cols() == 3 && T.cols() == 4, "need #V x 3 positions and #T x 4 tets, got ", shape_of(X), " and ",
               shape_of(T));
  FASTCD_CHECK(T.size() == 0 || (T.minCoeff() >= 0 && T.maxCoeff() < X.rows()), "T has an index outside [0, ", X.rows(),
               ")");
  VectorXd out(T.rows());
  constexpr int kFace[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};  // face k is opposite vertex k
  for (Index t = 0; t < T.rows(); ++t) {
    std::array<Eigen::Vector3d, 4> p, n;
    for (int k = 0; k < 4; ++k) p[static_cast<std::size_t>(k)] = X.row(T(t, k));
    const double s = (p[1] - p[0]).cross(p[2] - p[0]).dot(p[3] - p[0]) < 0 ? -1.0 : 1.0;
    for (int k = 0; k < 4; ++k) {
      const auto& f = kFace[k];
      n[static_cast<std::size_t>(k)] =
          s * (p[static_cast<std::size_t>(f[1])] - p[static_cast<std::size_t>(f[0])])
                  .cross(p[static_cast<std::size_t>(f[2])] - p[static_cast<std::size_t>(f[0])]);
      const double len = n[static_cast<std::size_t>(k)].norm();
      if (len > 0) n[static_cast<std::size_t>(k)] /= len;
    }
    double smallest = 180;
    for (int i = 0; i < 4; ++i)
      for (int j = i + 1; j < 4; ++j) {
        const double c = std::clamp(-n[static_cast<std::size_t>(i)].dot(n[static_cast<std::size_t>(j)]), -1.0, 1.0);
        smallest = std::min(smallest, std::acos(c) * 180.0 / M_PI);
      }
    out[t] = smallest;
  }
  return out;
}

}  // namespace fastcd
