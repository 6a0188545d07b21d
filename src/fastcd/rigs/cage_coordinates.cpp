#include "fastcd/rigs/cage_coordinates.hpp"

#include <Eigen/Geometry>
#include <Eigen/SparseCholesky>
#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "fastcd/common/check.hpp"

namespace fastcd {
namespace {

constexpr double kPi = 3.14159265358979323846;
/// Points closer than this (times the cage's bounding-box diagonal) to the cage are "on" it.
constexpr double kBoundaryEps = 1e-12;
/// 3D: a triangle whose plane (nearly) contains x, with x outside it, is skipped when
/// |det[u_i u_j u_k]| is below this and the triangle covers clearly less than a hemisphere.
constexpr double kCoplanarDet = 1e-10;
constexpr double kCoplanarAngle = 1e-6;

/// Throws std::invalid_argument("<where>: <message>") when `cond` is false.
template <class... Args>
void require(bool cond, const char* where, const Args&... args) {
  if (!cond) throw std::invalid_argument(detail::concat(where, ": ", args...));
}

/// Interpolation weights of a point on the cage: up to 3 (cage vertex, weight) pairs.
struct Hat {
  std::array<int, 3> idx{};
  std::array<double, 3> w{};
  int n = 0;
};

/// The cage in fixed-size types: vertices and boundary simplices (edges / triangles).
template <int D>
struct Cage {
  using Vec = Eigen::Matrix<double, D, 1>;
  std::vector<Vec> V;
  std::vector<std::array<int, D>> F;
  std::vector<char> used;  // vertex referenced by some simplex
  Vec lo, hi;              // bounding box of the used vertices
  double eps = 0;          // absolute "on the cage" distance
};

/// Validates the arguments shared by both coordinate functions; returns the cage.
template <int D>
Cage<D> make_cage(const Eigen::Ref<const MatrixXd>& cage_V, const Eigen::Ref<const MatrixXi>& cage_F,
                  const char* where) {
  using Vec = typename Cage<D>::Vec;
  const Index nc = cage_V.rows();
  Cage<D> c;
  c.V.resize(static_cast<std::size_t>(nc));
  for (Index j = 0; j < nc; ++j) c.V[j] = cage_V.row(j).transpose();
  c.used.assign(static_cast<std::size_t>(nc), 0);
  c.F.resize(static_cast<std::size_t>(cage_F.rows()));
  for (Index r = 0; r < cage_F.rows(); ++r) {
    for (int a = 0; a < D; ++a) {
      const int v = cage_F(r, a);
      require(v >= 0 && v < nc, where, "cage_F(", r, ", ", a, ") = ", v, " is out of range [0, ", nc, ") (row ", r,
              ")");
      c.F[r][a] = v;
      c.used[v] = 1;
    }
    for (int a = 0; a < D; ++a)
      for (int b = a + 1; b < D; ++b)
        require(c.F[r][a] != c.F[r][b], where, "cage_F row ", r, " repeats vertex ", c.F[r][a]);
  }
  c.lo = Vec::Constant(std::numeric_limits<double>::infinity());
  c.hi = -c.lo;
  for (Index j = 0; j < nc; ++j)
    if (c.used[j]) {
      c.lo = c.lo.cwiseMin(c.V[j]);
      c.hi = c.hi.cwiseMax(c.V[j]);
    }
  const double diag = (c.hi - c.lo).norm();
  c.eps = kBoundaryEps * diag;
  const double tiny = 1e-14 * diag;
  for (Index r = 0; r < cage_F.rows(); ++r) {
    const auto& f = c.F[r];
    for (int a = 0; a < D; ++a) {
      const int i = f[a], j = f[(a + 1) % D];
      require((c.V[i] - c.V[j]).norm() > tiny, where, "cage_F row ", r, ": edge (", i, ", ", j, ") has zero length");
      if (D == 2) break;
    }
    if constexpr (D == 3) {
      const Eigen::Vector3d n = (c.V[f[1]] - c.V[f[0]]).cross(c.V[f[2]] - c.V[f[0]]);
      require(n.norm() > tiny * diag, where, "cage_F row ", r, ": triangle (", f[0], ", ", f[1], ", ", f[2],
              ") has zero area");
    }
  }
  // Closed and consistently oriented.
  if constexpr (D == 2) {
    std::vector<int> out(static_cast<std::size_t>(nc), 0), in(static_cast<std::size_t>(nc), 0);
    for (const auto& e : c.F) {
      ++out[e[0]];
      ++in[e[1]];
    }
    for (Index j = 0; j < nc; ++j)
      require(out[j] == in[j], where, "cage_F is not a closed, consistently directed polygon: vertex ", j, " starts ",
              out[j], " edge(s) but ends ", in[j], " (list the edges head to tail, e.g. 0-1, 1-2, ..., n-1-0)");
  } else {
    std::map<std::pair<int, int>, Index> half;  // directed edge -> row
    for (Index r = 0; r < cage_F.rows(); ++r)
      for (int a = 0; a < 3; ++a) {
        const std::pair<int, int> e{c.F[r][a], c.F[r][(a + 1) % 3]};
        const auto [it, fresh] = half.emplace(e, r);
        require(fresh, where, "cage_F is not a consistently oriented triangle mesh: directed edge (", e.first, ", ",
                e.second, ") appears in rows ", it->second, " and ", r);
      }
    for (const auto& [e, r] : half)
      require(half.count({e.second, e.first}) == 1, where,
              "cage_F is not a closed, consistently oriented triangle mesh: edge (", e.first, ", ", e.second,
              ") of row ", r, " has no opposite edge (", e.second, ", ", e.first, ")");
  }
  return c;
}

/// All argument checks of the public functions; returns nothing, throws on the first problem.
void check_arguments(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXd>& cage_V,
                     const Eigen::Ref<const MatrixXi>& cage_F, const char* where) {
  const Index dim = cage_V.cols();
  require(dim == 2 || dim == 3, where, "cage_V must be #C x 2 or #C x 3, got ", shape_of(cage_V));
  require(X.cols() == dim, where, "X must be #X x ", dim, " like cage_V, got ", shape_of(X));
  require(cage_V.rows() >= 3, where, "cage_V must have at least 3 vertices, got ", cage_V.rows());
  require(cage_F.cols() == dim, where, "cage_F must be ", dim == 2 ? "#E x 2 polygon edges" : "#F x 3 triangles",
          " for a ", dim, "D cage, got ", shape_of(cage_F));
  require(cage_F.rows() >= dim + 1, where, "cage_F must have at least ", dim + 1, dim == 2 ? " edges" : " triangles",
          " to close the cage, got ", cage_F.rows());
  check_finite(cage_V, "cage_V", where);
  check_finite(X, "X", where);
}

// ------------------------------------------------------------------- closest point on the cage

/// Closest point of x on the segment (a, b): its parameter t in [0, 1] (point = a + t (b - a)).
template <class Vec>
double segment_parameter(const Vec& x, const Vec& a, const Vec& b) {
  const Vec e = b - a;
  const double t = e.dot(x - a) / e.squaredNorm();
  return std::clamp(t, 0.0, 1.0);
}

/// Barycentric coordinates of the point of triangle (a, b, c) closest to x (Voronoi regions
/// of vertices, edges and face, as in Ericson, Real-Time Collision Detection, 5.1.5).
std::array<double, 3> triangle_closest_barycentric(const Eigen::Vector3d& x, const Eigen::Vector3d& a,
                                                   const Eigen::Vector3d& b, const Eigen::Vector3d& c) {
  const Eigen::Vector3d ab = b - a, ac = c - a;
  const Eigen::Vector3d ax = x - a, bx = x - b, cx = x - c;
  const double d1 = ab.dot(ax), d2 = ac.dot(ax);
  if (d1 <= 0 && d2 <= 0) return {1, 0, 0};
  const double d3 = ab.dot(bx), d4 = ac.dot(bx);
  if (d3 >= 0 && d4 <= d3) return {0, 1, 0};
  const double d5 = ab.dot(cx), d6 = ac.dot(cx);
  if (d6 >= 0 && d5 <= d6) return {0, 0, 1};
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    const double t = d1 / (d1 - d3);
    return {1 - t, t, 0};
  }
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    const double t = d2 / (d2 - d6);
    return {1 - t, 0, t};
  }
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
    const double t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    return {0, 1 - t, t};
  }
  const double s = 1.0 / (va + vb + vc);
  const double v = vb * s, w = vc * s;
  return {1 - v - w, v, w};
}

/// Distance from x to the cage and the hat values (linear / barycentric) at the closest point.
template <int D>
double closest_on_cage(const Cage<D>& cage, const typename Cage<D>::Vec& x, Hat& hat) {
  double best = std::numeric_limits<double>::infinity();
  for (const auto& f : cage.F) {
    if constexpr (D == 2) {
      const auto& a = cage.V[f[0]];
      const auto& b = cage.V[f[1]];
      const double t = segment_parameter(x, a, b);
      const double d = (a + t * (b - a) - x).norm();
      if (d < best) {
        best = d;
        hat.n = 2;
        hat.idx = {f[0], f[1], 0};
        hat.w = {1 - t, t, 0};
      }
    } else {
      const auto l = triangle_closest_barycentric(x, cage.V[f[0]], cage.V[f[1]], cage.V[f[2]]);
      const double d = (l[0] * cage.V[f[0]] + l[1] * cage.V[f[1]] + l[2] * cage.V[f[2]] - x).norm();
      if (d < best) {
        best = d;
        hat.n = 3;
        hat.idx = {f[0], f[1], f[2]};
        hat.w = l;
      }
    }
  }
  return best;
}

/// The delta row of the closest cage vertex within eps, else the hat of the closest point on
/// the cage within eps; returns false if x is farther than eps from the cage.
template <int D>
bool on_cage(const Cage<D>& cage, const typename Cage<D>::Vec& x, Hat& hat) {
  double best = std::numeric_limits<double>::infinity();
  int vbest = -1;
  for (std::size_t j = 0; j < cage.V.size(); ++j)
    if (cage.used[j]) {
      const double d = (cage.V[j] - x).norm();
      if (d < best) {
        best = d;
        vbest = static_cast<int>(j);
      }
    }
  if (best <= cage.eps) {
    hat.n = 1;
    hat.idx = {vbest, 0, 0};
    hat.w = {1, 0, 0};
    return true;
  }
  return closest_on_cage(cage, x, hat) <= cage.eps;
}

/// Winding number of the cage around x (+-1 inside, 0 outside, sign = orientation).
double winding_number(const Cage<2>& cage, const Eigen::Vector2d& x) {
  double sum = 0;
  for (const auto& e : cage.F) {
    const Eigen::Vector2d a = cage.V[e[0]] - x, b = cage.V[e[1]] - x;
    sum += std::atan2(a.x() * b.y() - a.y() * b.x(), a.dot(b));
  }
  return sum / (2 * kPi);
}

double winding_number(const Cage<3>& cage, const Eigen::Vector3d& x) {
  // Van Oosterom & Strackee: tan(Omega / 2) = det[a b c] / (|a||b||c| + (a.b)|c| + (b.c)|a| + (c.a)|b|).
  double sum = 0;
  for (const auto& f : cage.F) {
    const Eigen::Vector3d a = cage.V[f[0]] - x, b = cage.V[f[1]] - x, c = cage.V[f[2]] - x;
    const double la = a.norm(), lb = b.norm(), lc = c.norm();
    const double det = a.dot(b.cross(c));
    const double den = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
    sum += 2 * std::atan2(det, den);
  }
  return sum / (4 * kPi);
}

// ---------------------------------------------------------------------- mean value coordinates

/// Unnormalised 2D mean value weights of x (not on the cage), accumulated into w (size #C).
void mean_value_weights(const Cage<2>& cage, const Eigen::Vector2d& x, double* w) {
  for (const auto& e : cage.F) {
    const Eigen::Vector2d& ca = cage.V[e[0]];
    const Eigen::Vector2d& cb = cage.V[e[1]];
    const Eigen::Vector2d sa = ca - x, sb = cb - x, ab = cb - ca;
    const double ra = sa.norm(), rb = sb.norm();
    const double A2 = sa.x() * ab.y() - sa.y() * ab.x();  // det(sa, sb) = 2 * signed area
    const double D = sa.dot(sb);
    // tan(alpha / 2) = sin / (1 + cos) = (1 - cos) / sin, each used where it is accurate.
    double tan_half;
    if (D >= 0)
      tan_half = A2 / (ra * rb + D);
    else if (A2 != 0)
      tan_half = (ra * rb - D) / A2;
    else
      continue;  // x on the edge: excluded by the caller (on_cage); defensive only
    w[e[0]] += tan_half / ra;
    w[e[1]] += tan_half / rb;
  }
}

/// Unnormalised 3D mean value weights of x (not on the cage), accumulated into w (size #C).
void mean_value_weights(const Cage<3>& cage, const Eigen::Vector3d& x, double* w, std::vector<Eigen::Vector3d>& u,
                        std::vector<double>& d) {
  for (std::size_t j = 0; j < cage.V.size(); ++j) {
    if (!cage.used[j]) continue;
    u[j] = cage.V[j] - x;
    d[j] = u[j].norm();
    u[j] /= d[j];
  }
  for (const auto& f : cage.F) {
    const int i0 = f[0], i1 = f[1], i2 = f[2];
    const Eigen::Vector3d &u0 = u[i0], &u1 = u[i1], &u2 = u[i2];
    // det[u0 u1 u2] from the face normal, accurate close to the face's plane.
    const Eigen::Vector3d fn = (cage.V[i1] - cage.V[i0]).cross(cage.V[i2] - cage.V[i0]);
    const double det = fn.dot(cage.V[i0] - x) / (d[i0] * d[i1] * d[i2]);
    // Arc lengths and plane normals of the spherical triangle's edges.
    const auto arc = [](const Eigen::Vector3d& a, const Eigen::Vector3d& b) {
      return 2 * std::atan2((a - b).norm(), (a + b).norm());
    };
    const double t01 = arc(u0, u1), t12 = arc(u1, u2), t20 = arc(u2, u0);
    if (det == 0 || (std::abs(det) < kCoplanarDet && t01 + t12 + t20 < 2 * kPi * (1 - kCoplanarAngle)))
      continue;  // x in the triangle's plane, outside it: no contribution (JSW)
    const Eigen::Vector3d c01 = u0.cross(u1), c12 = u1.cross(u2), c20 = u2.cross(u0);
    const auto unit = [](const Eigen::Vector3d& v) {
      const double n = v.norm();
      return n > 0 ? Eigen::Vector3d(v / n) : Eigen::Vector3d::Zero();
    };
    // m = integral of u over the spherical triangle; lambda = [u0 u1 u2]^{-1} m (Cramer).
    const Eigen::Vector3d m = 0.5 * (t01 * unit(c01) + t12 * unit(c12) + t20 * unit(c20));
    w[i0] += m.dot(c12) / det / d[i0];
    w[i1] += m.dot(c20) / det / d[i1];
    w[i2] += m.dot(c01) / det / d[i2];
  }
}

template <int D>
MatrixXd mean_value_coordinates_impl(const Eigen::Ref<const MatrixXd>& X, const Cage<D>& cage) {
  using Vec = typename Cage<D>::Vec;
  const Index nc = static_cast<Index>(cage.V.size());
  MatrixXd W = MatrixXd::Zero(X.rows(), nc);
  std::vector<double> w(static_cast<std::size_t>(nc));
  std::vector<Eigen::Vector3d> u(D == 3 ? cage.V.size() : 0);
  std::vector<double> dist(D == 3 ? cage.V.size() : 0);
  for (Index i = 0; i < X.rows(); ++i) {
    const Vec x = X.row(i).transpose();
    Hat hat;
    if (on_cage(cage, x, hat)) {
      for (int a = 0; a < hat.n; ++a) W(i, hat.idx[a]) += hat.w[a];
      continue;
    }
    std::fill(w.begin(), w.end(), 0.0);
    if constexpr (D == 2)
      mean_value_weights(cage, x, w.data());
    else
      mean_value_weights(cage, x, w.data(), u, dist);
    double sum = 0, mag = 0;
    for (double v : w) {
      sum += v;
      mag += std::abs(v);
    }
    FASTCD_ENSURE(std::isfinite(sum) && std::abs(sum) > 1e-12 * mag, "the mean value weights of X row ", i,
                  " sum to zero (", sum, "); is the point outside a non-convex cage?");
    for (Index j = 0; j < nc; ++j) W(i, j) = w[j] / sum;
  }
  return W;
}

// ------------------------------------------------------------------------ harmonic coordinates

/// A regular grid of nodes covering the cage's bounding box plus `pad` cells on every side.
template <int D>
struct Grid {
  using Vec = Eigen::Matrix<double, D, 1>;
  using IVec = Eigen::Matrix<Index, D, 1>;
  Vec origin;
  double h = 0;
  IVec n;  // nodes per axis
  Index size() const { return n.prod(); }
  Index id(const IVec& c) const {
    Index k = 0;
    for (int a = D - 1; a >= 0; --a) k = k * n(a) + c(a);
    return k;
  }
  IVec coords(Index k) const {
    IVec c;
    for (int a = 0; a < D; ++a) {
      c(a) = k % n(a);
      k /= n(a);
    }
    return c;
  }
  Vec position(const IVec& c) const { return origin + h * c.template cast<double>(); }
};

template <int D>
MatrixXd harmonic_coordinates_impl(const Eigen::Ref<const MatrixXd>& X, const Cage<D>& cage, int resolution) {
  using Vec = typename Grid<D>::Vec;
  using IVec = typename Grid<D>::IVec;
  const char* where = "harmonic_coordinates";
  const Index nc = static_cast<Index>(cage.V.size());
  const Index nx = X.rows();

  // 1. Every query point is inside the cage (or on it).
  std::vector<Hat> on(static_cast<std::size_t>(nx));
  for (Index i = 0; i < nx; ++i) {
    const Vec x = X.row(i).transpose();
    if (on_cage(cage, x, on[i])) continue;
    on[i].n = 0;
    require(std::abs(winding_number(cage, x)) > 0.5, where, "X row ", i, " (", X.row(i),
            ") is outside the cage; harmonic coordinates are defined inside it only");
  }

  // 2. The grid and its free (inside) nodes.
  constexpr int pad = 2;
  Grid<D> g;
  g.h = (cage.hi - cage.lo).maxCoeff() / resolution;
  g.origin = cage.lo - Vec::Constant(pad * g.h);
  for (int a = 0; a < D; ++a)
    g.n(a) = static_cast<Index>(std::ceil((cage.hi(a) - cage.lo(a)) / g.h - 1e-9)) + 1 + 2 * pad;
  const Index nn = g.size();
  // node_slot: >= 0 free unknown index; -1 not yet needed; <= -2 Dirichlet node -(slot + 2).
  std::vector<Index> node_slot(static_cast<std::size_t>(nn), -1);
  Index nfree = 0;
  for (Index k = 0; k < nn; ++k) {
    const Vec p = g.position(g.coords(k));
    if ((p.array() < cage.lo.array()).any() || (p.array() > cage.hi.array()).any()) continue;
    if (std::abs(winding_number(cage, p)) <= 0.5) continue;
    Hat hat;
    if (closest_on_cage(cage, p, hat) > cage.eps) node_slot[k] = nfree++;  // nodes on the cage: Dirichlet
  }
  std::vector<Hat> dirichlet;
  const auto dirichlet_slot = [&](Index k) {
    if (node_slot[k] == -1) {
      Hat hat;
      closest_on_cage(cage, g.position(g.coords(k)), hat);
      node_slot[k] = -2 - static_cast<Index>(dirichlet.size());
      dirichlet.push_back(hat);
    }
    assert(node_slot[k] <= -2 && "a free node cannot be a Dirichlet node");
    return -2 - node_slot[k];
  };

  // 3. Graph Laplacian on the free nodes; Dirichlet neighbours go to the right-hand side B.
  std::vector<Triplet> lap, rhs;
  lap.reserve(static_cast<std::size_t>(nfree) * (2 * D + 1));
  for (Index k = 0; k < nn; ++k) {
    const Index r = node_slot[k];
    if (r < 0) continue;
    const IVec c = g.coords(k);
    lap.emplace_back(r, r, 2.0 * D);
    for (int a = 0; a < D; ++a)
      for (int s : {-1, 1}) {
        IVec cn = c;
        cn(a) += s;
        assert(cn(a) >= 0 && cn(a) < g.n(a) && "free nodes lie inside the padded grid");
        const Index kn = g.id(cn);
        if (node_slot[kn] >= 0) {
          lap.emplace_back(r, node_slot[kn], -1.0);
        } else {
          const Hat& hat = dirichlet[dirichlet_slot(kn)];
          for (int b = 0; b < hat.n; ++b) rhs.emplace_back(r, hat.idx[b], hat.w[b]);
        }
      }
  }

  // 4. Interpolation at X: W = P_free * U + P_hat (bilinear / trilinear over the cell).
  std::vector<Triplet> pf, ph;
  for (Index i = 0; i < nx; ++i) {
    if (on[i].n > 0) {
      for (int b = 0; b < on[i].n; ++b) ph.emplace_back(i, on[i].idx[b], on[i].w[b]);
      continue;
    }
    const Vec q = (X.row(i).transpose() - g.origin) / g.h;
    IVec c0;
    Vec f;
    for (int a = 0; a < D; ++a) {
      c0(a) = std::clamp<Index>(static_cast<Index>(std::floor(q(a))), 0, g.n(a) - 2);
      f(a) = q(a) - static_cast<double>(c0(a));
    }
    for (int corner = 0; corner < (1 << D); ++corner) {
      IVec c = c0;
      double wt = 1;
      for (int a = 0; a < D; ++a) {
        const int bit = (corner >> a) & 1;
        c(a) += bit;
        wt *= bit ? f(a) : 1 - f(a);
      }
      if (wt == 0) continue;
      const Index k = g.id(c);
      if (node_slot[k] >= 0) {
        pf.emplace_back(i, node_slot[k], wt);
      } else {
        const Hat& hat = dirichlet[dirichlet_slot(k)];
        for (int b = 0; b < hat.n; ++b) ph.emplace_back(i, hat.idx[b], wt * hat.w[b]);
      }
    }
  }
  SparseMatrix Pf(nx, nfree), Ph(nx, nc), B(nfree, nc);
  Pf.setFromTriplets(pf.begin(), pf.end());
  Ph.setFromTriplets(ph.begin(), ph.end());
  B.setFromTriplets(rhs.begin(), rhs.end());
  MatrixXd W = MatrixXd(Ph);

  // 5. Factor once, solve one cage vertex at a time (memory #free, not #free x #C).
  if (nfree > 0) {
    SparseMatrix L(nfree, nfree);
    L.setFromTriplets(lap.begin(), lap.end());
    Eigen::SimplicialLDLT<SparseMatrix> solver(L);
    FASTCD_ENSURE(solver.info() == Eigen::Success, "the grid Laplacian (", nfree,
                  " unknowns) could not be factored; lower `resolution`");
    for (Index j = 0; j < nc; ++j) {
      if (!cage.used[j]) continue;
      const VectorXd b = B.col(j);
      const VectorXd u = solver.solve(b);
      W.col(j) += Pf * u;
    }
  }
  // 6. Clamp rounding below 0 and normalise.
  for (Index i = 0; i < nx; ++i) {
    W.row(i) = W.row(i).cwiseMax(0.0);
    const double s = W.row(i).sum();
    FASTCD_ENSURE(s > 0, "X row ", i, " got no weight (", s, ")");
    W.row(i) /= s;
  }
  return W;
}

}  // namespace

MatrixXd mean_value_coordinates(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXd>& cage_V,
                                const Eigen::Ref<const MatrixXi>& cage_F) {
  const char* where = "mean_value_coordinates";
  check_arguments(X, cage_V, cage_F, where);
  if (cage_V.cols() == 2) return mean_value_coordinates_impl<2>(X, make_cage<2>(cage_V, cage_F, where));
  return mean_value_coordinates_impl<3>(X, make_cage<3>(cage_V, cage_F, where));
}

MatrixXd harmonic_coordinates(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXd>& cage_V,
                              const Eigen::Ref<const MatrixXi>& cage_F, int resolution) {
  const char* where = "harmonic_coordinates";
  check_arguments(X, cage_V, cage_F, where);
  require(resolution >= 4, where, "resolution must be >= 4, got ", resolution);
  if (cage_V.cols() == 2) return harmonic_coordinates_impl<2>(X, make_cage<2>(cage_V, cage_F, where), resolution);
  return harmonic_coordinates_impl<3>(X, make_cage<3>(cage_V, cage_F, where), resolution);
}

}  // namespace fastcd
