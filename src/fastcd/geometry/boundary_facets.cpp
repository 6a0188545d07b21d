#include "fastcd/geometry/boundary_facets.hpp"

#include <algorithm>
#include <array>
#include <map>

#include "fastcd/common/check.hpp"

namespace fastcd {

namespace {
constexpr int kTriFacets[3][2] = {{1, 2}, {2, 0}, {0, 1}};
constexpr int kTetFacets[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
}  // namespace

BoundaryFacets boundary_facets(const Eigen::Ref<const MatrixXi>& T) {
  FASTCD_CHECK(T.cols() == 3 || T.cols() == 4, "T must be #T x 3 (triangles) or #T x 4 (tets), got ", shape_of(T));
  FASTCD_CHECK(T.size() == 0 || T.minCoeff() >= 0, "T has a negative index (", T.minCoeff(), ")");
  const int s = static_cast<int>(T.cols()), fs = s - 1;
  auto facet = [&](Index e, int a, int k) { return s == 3 ? T(e, kTriFacets[a][k]) : T(e, kTetFacets[a][k]); };
  // Count facets by their sorted vertex triple.
  std::map<std::array<int, 3>, int> count;
  auto key = [&](Index e, int a) {
    std::array<int, 3> k{facet(e, a, 0), facet(e, a, 1), fs == 3 ? facet(e, a, 2) : -1};
    auto order = [](int& x, int& y) {
      if (y < x) std::swap(x, y);
    };
    if (fs == 3) {
      order(k[0], k[1]);
      order(k[1], k[2]);
    }
    order(k[0], k[1]);
    return k;
  };
  for (Index e = 0; e < T.rows(); ++e)
    for (int a = 0; a < s; ++a) ++count[key(e, a)];
  std::vector<std::pair<Index, int>> keep;
  for (Index e = 0; e < T.rows(); ++e)
    for (int a = 0; a < s; ++a)
      if (count[key(e, a)] == 1) keep.emplace_back(e, a);
  BoundaryFacets out;
  out.F.resize(static_cast<Index>(keep.size()), fs);
  out.J.resize(static_cast<Index>(keep.size()));
  out.K.resize(static_cast<Index>(keep.size()));
  for (Index i = 0; i < static_cast<Index>(keep.size()); ++i) {
    const auto [e, a] = keep[static_cast<std::size_t>(i)];
    for (int k = 0; k < fs; ++k) out.F(i, k) = facet(e, a, k);
    out.J(i) = static_cast<int>(e);
    out.K(i) = a;
  }
  return out;
}

VectorXi boundary_vertices(const Eigen::Ref<const MatrixXi>& T) {
  const MatrixXi F = boundary_facets(T).F;
  std::vector<int> v(F.data(), F.data() + F.size());
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return Eigen::Map<VectorXi>(v.data(), static_cast<Index>(v.size()));
}

}  // namespace fastcd
