#include "fastcd/meshing/shells.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "fastcd/common/cancel.hpp"
#include "fastcd/common/check.hpp"
#include "fastcd/common/progress.hpp"
#include "fastcd/meshing/surface.hpp"

namespace fastcd {

namespace {

// Triangle components by shared edges: the label of each triangle, labels 0.. in order of
// each component's first triangle.
std::vector<int> edge_components(const Eigen::Ref<const MatrixXi>& F, int& count) {
  const auto nf = static_cast<std::size_t>(F.rows());
  std::vector<int> parent(nf);
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int x) {
    while (parent[static_cast<std::size_t>(x)] != x)
      x = parent[static_cast<std::size_t>(x)] = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(x)])];
    return x;
  };
  std::vector<std::pair<std::pair<int, int>, int>> edges;
  edges.reserve(3 * nf);
  for (Index f = 0; f < F.rows(); ++f)
    for (int k = 0; k < 3; ++k) {
      const int a = F(f, k), b = F(f, (k + 1) % 3);
      edges.push_back({{std::min(a, b), std::max(a, b)}, static_cast<int>(f)});
    }
  std::sort(edges.begin(), edges.end());
  for (std::size_t i = 1; i < edges.size(); ++i)
    if (edges[i].first == edges[i - 1].first)
      parent[static_cast<std::size_t>(find(edges[i].second))] = find(edges[i - 1].second);
  std::vector<int> label(nf, -1), root_label(nf, -1);
  count = 0;
  for (std::size_t f = 0; f < nf; ++f) {
    const auto r = static_cast<std::size_t>(find(static_cast<int>(f)));
    if (root_label[r] < 0) root_label[r] = count++;
    label[f] = root_label[r];
  }
  return label;
}

}  // namespace

ShellTetMesh tetrahedralize_shells(const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& F,
                                   const TetrahedralizeOptions& options, const std::string& cache_dir) {
  FASTCD_CHECK(V.cols() == 3 && F.cols() == 3, "need a #V x 3 surface with #F x 3 triangles, got ", shape_of(V),
               " and ", shape_of(F));
  FASTCD_CHECK(F.rows() > 0, "the surface has no triangles");
  FASTCD_CHECK(F.minCoeff() >= 0 && F.maxCoeff() < V.rows(), "F has a vertex index outside [0, ", V.rows(), ")");
  FASTCD_CHECK(V.allFinite(), "the surface has non-finite vertex positions");
  {
    std::vector<char> used(static_cast<std::size_t>(V.rows()), 0);
    for (Index i = 0; i < F.size(); ++i) used[static_cast<std::size_t>(F.data()[i])] = 1;
    const auto unused = std::find(used.begin(), used.end(), 0);
    FASTCD_CHECK(unused == used.end(), "vertex ", unused - used.begin(),
                 " is on no triangle (points or lines only): remove it or weld the surface");
  }
  int shells = 0;
  const std::vector<int> label = edge_components(F, shells);
  ShellTetMesh out;
  out.shells = shells;
  out.F = F;
  std::vector<MatrixXd> interior(static_cast<std::size_t>(shells));
  std::vector<MatrixXi> tets(static_cast<std::size_t>(shells));
  std::vector<std::vector<int>> globals(static_cast<std::size_t>(shells));
  out.tets.min_dihedral = 180;
  out.tets.mesher = options.mesher;
  for (int s = 0; s < shells; ++s) {
    detail::throw_if_cancelled("tetrahedralize_shells");
    if (shells > 1) detail::report_progress("meshing", "filling the shells with tets", s, shells);
    // The shell on its own vertices (in input order).
    std::vector<Index> faces;
    for (Index f = 0; f < F.rows(); ++f)
      if (label[static_cast<std::size_t>(f)] == s) faces.push_back(f);
    std::vector<int>& g = globals[static_cast<std::size_t>(s)];
    for (Index f : faces)
      for (int k = 0; k < 3; ++k) g.push_back(F(f, k));
    std::sort(g.begin(), g.end());
    g.erase(std::unique(g.begin(), g.end()), g.end());
    std::map<int, int> local;
    for (std::size_t i = 0; i < g.size(); ++i) local[g[i]] = static_cast<int>(i);
    MatrixXd Vs(static_cast<Index>(g.size()), 3);
    for (std::size_t i = 0; i < g.size(); ++i) Vs.row(static_cast<Index>(i)) = V.row(g[i]);
    MatrixXi Fs(static_cast<Index>(faces.size()), 3);
    for (std::size_t i = 0; i < faces.size(); ++i)
      for (int k = 0; k < 3; ++k) Fs(static_cast<Index>(i), k) = local[F(faces[i], k)];

    SurfaceDefects d = check_surface(Vs, Fs);
    if (!d.ok()) {
      for (auto* edges : {&d.open_edges, &d.non_manifold_edges, &d.flipped_edges})
        for (auto& e : *edges) e = {g[static_cast<std::size_t>(e[0])], g[static_cast<std::size_t>(e[1])]};
      for (auto& p : d.intersecting)
        p = {static_cast<int>(faces[static_cast<std::size_t>(p[0])]),
             static_cast<int>(faces[static_cast<std::size_t>(p[1])])};
      throw std::invalid_argument((shells > 1 ? "shell " + std::to_string(s) + " of " + std::to_string(shells) + " (" +
                                                    std::to_string(faces.size()) + " triangles): "
                                              : std::string()) +
                                  d.describe());
    }
    if (d.volume < 0) {
      Fs = Fs.rowwise().reverse().eval();
      for (Index f : faces) out.F.row(f) = F.row(f).reverse();
      ++out.reversed;
    }
    bool cached = false;
    TetMesh m = tetrahedralize_cached(Vs, Fs, options, cache_dir, &cached);
    out.cached += cached ? 1 : 0;
    for (std::string& w : m.warnings)  // the cache's, once each (a folder that cannot be written: every shell)
      if (std::find(out.tets.warnings.begin(), out.tets.warnings.end(), w) == out.tets.warnings.end())
        out.tets.warnings.push_back(std::move(w));
    out.tets.min_dihedral = std::min(out.tets.min_dihedral, m.min_dihedral);
    out.tets.slivers += m.slivers;
    out.tets.seconds += m.seconds;
    out.tets.mesher = m.mesher;
    interior[static_cast<std::size_t>(s)] = m.X.bottomRows(m.X.rows() - Vs.rows());
    // Local tet vertex -> global: surface vertices by g, interior ones appended later.
    tets[static_cast<std::size_t>(s)] = std::move(m.T);
  }
  // Assemble: the input vertices, then each shell's interior points.
  Index rows = V.rows(), count = 0;
  for (const MatrixXd& I : interior) rows += I.rows();
  for (const MatrixXi& T : tets) count += T.rows();
  out.tets.X.resize(rows, 3);
  out.tets.X.topRows(V.rows()) = V;
  out.tets.T.resize(count, 4);
  Index next = V.rows(), t0 = 0;
  for (int s = 0; s < shells; ++s) {
    const auto su = static_cast<std::size_t>(s);
    const auto n = static_cast<int>(globals[su].size());
    out.tets.X.middleRows(next, interior[su].rows()) = interior[su];
    const MatrixXi& T = tets[su];
    for (Index t = 0; t < T.rows(); ++t)
      for (int k = 0; k < 4; ++k) {
        const int i = T(t, k);
        out.tets.T(t0 + t, k) = i < n ? globals[su][static_cast<std::size_t>(i)] : static_cast<int>(next) + (i - n);
      }
    next += interior[su].rows();
    t0 += T.rows();
  }
  out.tets.surface_vertices = V.rows();
  return out;
}

}  // namespace fastcd
