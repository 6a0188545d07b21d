#include "fastcd/geometry/subdivide_simplices.hpp"

#include <algorithm>
#include <array>
#include <unordered_map>

#include "fastcd/common/check.hpp"
#include "fastcd/geometry/simplex.hpp"

namespace fastcd {

Mesh subdivide_simplices(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T) {
  check_mesh(X, T, "subdivide_simplices");
  const Index d = X.cols(), n = X.rows(), nt = T.rows();
  std::unordered_map<std::uint64_t, int> mid;
  std::vector<std::array<int, 2>> edges;
  auto midpoint = [&](int a, int b) {
    const auto lo = static_cast<std::uint64_t>(std::min(a, b)), hi = static_cast<std::uint64_t>(std::max(a, b));
    auto [it, fresh] = mid.try_emplace((lo << 32) | hi, static_cast<int>(n + static_cast<Index>(edges.size())));
    if (fresh) edges.push_back({a, b});
    return it->second;
  };
  const Index children = d == 2 ? 4 : 8;
  Mesh out;
  out.T.resize(nt * children, d + 1);
  for (Index e = 0; e < nt; ++e) {
    const auto v = [&](int i) { return T(e, i); };
    std::vector<std::array<int, 4>> kids;
    if (d == 2) {
      const int m01 = midpoint(v(0), v(1)), m12 = midpoint(v(1), v(2)), m02 = midpoint(v(0), v(2));
      kids = {{v(0), m01, m02, 0}, {m01, v(1), m12, 0}, {m02, m12, v(2), 0}, {m01, m12, m02, 0}};
    } else {
      const int m01 = midpoint(v(0), v(1)), m02 = midpoint(v(0), v(2)), m03 = midpoint(v(0), v(3)),
                m12 = midpoint(v(1), v(2)), m13 = midpoint(v(1), v(3)), m23 = midpoint(v(2), v(3));
      kids = {{v(0), m01, m02, m03}, {m01, v(1), m12, m13}, {m02, m12, v(2), m23}, {m03, m13, m23, v(3)}};
      // The octahedron m01 m02 m03 m12 m13 m23: cut along its shortest diagonal (the best-shaped
      // children); the other four vertices form the ring around it.
      const std::array<std::array<int, 6>, 3> cuts = {
          {{m02, m13, m01, m12, m23, m03}, {m03, m12, m01, m13, m23, m02}, {m01, m23, m02, m12, m13, m03}}};
      auto len2 = [&](int a, int b) {
        const auto pa = [&](int i) {
          return i < n ? VectorXd(X.row(i))
                       : VectorXd(0.5 * (X.row(edges[static_cast<std::size_t>(i - n)][0]) +
                                         X.row(edges[static_cast<std::size_t>(i - n)][1])));
        };
        return (pa(a) - pa(b)).squaredNorm();
      };
      std::size_t best = 0;
      for (std::size_t c = 1; c < 3; ++c)
        if (len2(cuts[c][0], cuts[c][1]) < len2(cuts[best][0], cuts[best][1])) best = c;
      const auto& c = cuts[best];
      for (int r = 0; r < 4; ++r) kids.push_back({c[0], c[1], c[2 + r], c[2 + (r + 1) % 4]});
    }
    for (Index k = 0; k < children; ++k)
      for (Index i = 0; i <= d; ++i)
        out.T(e * children + k, i) = kids[static_cast<std::size_t>(k)][static_cast<std::size_t>(i)];
  }
  out.X.resize(n + static_cast<Index>(edges.size()), d);
  out.X.topRows(n) = X;
  for (std::size_t k = 0; k < edges.size(); ++k)
    out.X.row(n + static_cast<Index>(k)) = 0.5 * (X.row(edges[k][0]) + X.row(edges[k][1]));
  // Orient every child as its parent.
  for (Index e = 0; e < nt; ++e) {
    const double parent = d == 2 ? detail::signed_measure<2>(X, T, e) : detail::signed_measure<3>(X, T, e);
    for (Index k = 0; k < children; ++k) {
      const Index c = e * children + k;
      const double s = d == 2 ? detail::signed_measure<2>(out.X, out.T, c) : detail::signed_measure<3>(out.X, out.T, c);
      if ((s < 0) != (parent < 0)) std::swap(out.T(c, 0), out.T(c, 1));
    }
  }
  return out;
}

}  // namespace fastcd
