#include "fastcd/meshing/voxel.hpp"

#include <Eigen/Geometry>
#include <Eigen/LU>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <unordered_map>
#include <vector>

#include "fastcd/common/cancel.hpp"
#include "fastcd/common/check.hpp"
#include "fastcd/common/memory.hpp"

namespace fastcd {

VectorXd winding_numbers(const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& F,
                         const Eigen::Ref<const MatrixXd>& P) {
  FASTCD_CHECK(V.cols() == 3 && F.cols() == 3 && P.cols() == 3, "need #V x 3, #F x 3 and #P x 3, got ", shape_of(V),
               ", ", shape_of(F), " and ", shape_of(P));
  FASTCD_CHECK(F.size() == 0 || (F.minCoeff() >= 0 && F.maxCoeff() < V.rows()), "a triangle index is out of range");
  VectorXd w = VectorXd::Zero(P.rows());
  for (Index p = 0; p < P.rows(); ++p) {
    if (p % 256 == 0) detail::throw_if_cancelled("winding_numbers");
    const Eigen::Vector3d x = P.row(p).transpose();
    double sum = 0;
    for (Index f = 0; f < F.rows(); ++f) {
      // Van Oosterom & Strackee: tan(Omega / 2) = a . (b x c) / (|a||b||c| + (a.b)|c| + (b.c)|a| + (c.a)|b|)
      const Eigen::Vector3d a = V.row(F(f, 0)).transpose() - x, b = V.row(F(f, 1)).transpose() - x,
                            c = V.row(F(f, 2)).transpose() - x;
      const double la = a.norm(), lb = b.norm(), lc = c.norm();
      const double num = a.dot(b.cross(c));
      const double den = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
      sum += 2 * std::atan2(num, den);
    }
    w[p] = sum / (4 * EIGEN_PI);
  }
  return w;
}

VoxelMesh voxel_mesh(const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& F,
                     const VoxelOptions& options) {
  FASTCD_CHECK(V.cols() == 3 && F.cols() == 3 && V.rows() >= 1 && F.rows() >= 1,
               "need a #V x 3 surface with #F x 3 triangles, got ", shape_of(V), " and ", shape_of(F));
  FASTCD_CHECK(F.minCoeff() >= 0 && F.maxCoeff() < V.rows(), "a triangle index is out of range [0, ", V.rows(), ")");
  FASTCD_CHECK(V.allFinite(), "the surface has non-finite positions");
  FASTCD_CHECK(options.resolution >= 2 && options.resolution <= 256, "resolution must lie in [2, 256], got ",
               options.resolution);
  const auto t0 = std::chrono::steady_clock::now();
  const Eigen::RowVector3d lo = V.colwise().minCoeff(), hi = V.colwise().maxCoeff();
  const double extent = (hi - lo).maxCoeff();
  FASTCD_CHECK(extent > 0, "the surface has no extent");
  VoxelMesh out;
  const double h = extent / options.resolution;
  out.cell_size = h;
  // One cell of margin on every side, so every vertex lies strictly inside the grid.
  int n[3];
  Eigen::RowVector3d origin;
  for (int a = 0; a < 3; ++a) {
    n[a] = std::max(1, static_cast<int>(std::ceil((hi[a] - lo[a]) / h))) + 2;
    origin[a] = (lo[a] + hi[a]) / 2 - n[a] * h / 2;
  }
  const auto cell_id = [&](int x, int y, int z) { return x + n[0] * (static_cast<Index>(y) + n[1] * z); };
  const Index ncells = static_cast<Index>(n[0]) * n[1] * n[2];
  // Memory, refused before it is allocated: the grid (per cell its centre, winding number,
  // component and two flags), then the tets of the cells kept.
  const std::string what = "voxelising at resolution " + std::to_string(options.resolution) + " (a " +
                           std::to_string(n[0]) + " x " + std::to_string(n[1]) + " x " + std::to_string(n[2]) +
                           " grid)";
  const auto advice = [&](double bytes) {
    const double fit = size_to_fit(options.resolution, bytes, 3.0);
    return "use a lower voxel resolution" +
           (fit >= 2 ? " (about " + std::to_string(static_cast<int>(fit)) + " would fit)" : std::string());
  };
  const double grid_bytes = 42.0 * static_cast<double>(ncells);
  // Per kept cell: six tets (16 bytes each, twice: the list and T) and about one corner (its
  // position twice and its map entry).
  constexpr double kCellBytes = 6.0 * 32.0 + 48.0 + 64.0;
  // Before the winding numbers (the long part): at least the cells inside the enclosed volume
  // (the triangles' signed volume; a lower bound for an open skin) are kept.
  double enclosed = 0;
  for (Index f = 0; f < F.rows(); ++f) {
    const Eigen::Vector3d a = V.row(F(f, 0)).transpose(), b = V.row(F(f, 1)).transpose(),
                          c = V.row(F(f, 2)).transpose();
    enclosed += a.dot(b.cross(c)) / 6.0;
  }
  const double inside = std::min(static_cast<double>(ncells), std::abs(enclosed) / (h * h * h));
  check_memory(grid_bytes + inside * kCellBytes, what, advice(grid_bytes + inside * kCellBytes));
  std::vector<char> keep(static_cast<std::size_t>(ncells), 0), holds(static_cast<std::size_t>(ncells), 0);
  for (Index v = 0; v < V.rows(); ++v) {
    int c[3];
    for (int a = 0; a < 3; ++a) c[a] = std::clamp(static_cast<int>(std::floor((V(v, a) - origin[a]) / h)), 0, n[a] - 1);
    holds[static_cast<std::size_t>(cell_id(c[0], c[1], c[2]))] = 1;
  }
  MatrixXd centres(ncells, 3);
  for (int z = 0; z < n[2]; ++z)
    for (int y = 0; y < n[1]; ++y)
      for (int x = 0; x < n[0]; ++x)
        centres.row(cell_id(x, y, z)) = origin + h * Eigen::RowVector3d(x + 0.5, y + 0.5, z + 0.5);
  const VectorXd w = winding_numbers(V, F, centres);
  for (Index c = 0; c < ncells; ++c) {
    keep[static_cast<std::size_t>(c)] = holds[static_cast<std::size_t>(c)] || w[c] >= 0.5;
    if (!holds[static_cast<std::size_t>(c)] && w[c] >= 0.5) ++out.inside_cells;
  }
  // Drop components (cells sharing a corner) that hold no surface vertex: their weights would
  // be undetermined and nothing renders them.
  std::vector<Index> comp(static_cast<std::size_t>(ncells), -1);
  std::vector<char> comp_holds;
  std::vector<Index> stack;
  for (Index c0 = 0; c0 < ncells; ++c0) {
    if (!keep[static_cast<std::size_t>(c0)] || comp[static_cast<std::size_t>(c0)] >= 0) continue;
    const auto id = static_cast<Index>(comp_holds.size());
    comp_holds.push_back(0);
    stack.assign(1, c0);
    comp[static_cast<std::size_t>(c0)] = id;
    while (!stack.empty()) {
      const Index c = stack.back();
      stack.pop_back();
      if (holds[static_cast<std::size_t>(c)]) comp_holds[static_cast<std::size_t>(id)] = 1;
      const int x = static_cast<int>(c % n[0]), y = static_cast<int>((c / n[0]) % n[1]),
                z = static_cast<int>(c / (static_cast<Index>(n[0]) * n[1]));
      for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            const int X = x + dx, Y = y + dy, Z = z + dz;
            if (X < 0 || Y < 0 || Z < 0 || X >= n[0] || Y >= n[1] || Z >= n[2]) continue;
            const Index d = cell_id(X, Y, Z);
            if (!keep[static_cast<std::size_t>(d)] || comp[static_cast<std::size_t>(d)] >= 0) continue;
            comp[static_cast<std::size_t>(d)] = id;
            stack.push_back(d);
          }
    }
  }
  for (Index c = 0; c < ncells; ++c)
    if (keep[static_cast<std::size_t>(c)] && !comp_holds[static_cast<std::size_t>(comp[static_cast<std::size_t>(c)])]) {
      keep[static_cast<std::size_t>(c)] = 0;
      ++out.dropped_cells;
      --out.inside_cells;
    }
  const double kept = static_cast<double>(std::count(keep.begin(), keep.end(), char{1}));
  const double tet_bytes = grid_bytes + kept * kCellBytes;
  check_memory(tet_bytes, what, advice(tet_bytes));
  // Six Kuhn tets per kept cell around its main diagonal (conforming across cells), on the
  // corners the kept cells use.
  const int m[3] = {n[0] + 1, n[1] + 1, n[2] + 1};
  std::unordered_map<Index, int> corner;
  std::vector<Eigen::RowVector3d> pts;
  auto corner_index = [&](int x, int y, int z) {
    const Index key = x + m[0] * (static_cast<Index>(y) + m[1] * z);
    const auto [it, fresh] = corner.emplace(key, static_cast<int>(pts.size()));
    if (fresh) pts.push_back(origin + h * Eigen::RowVector3d(x, y, z));
    return it->second;
  };
  static constexpr int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  std::vector<Eigen::Vector4i> tets;
  for (int z = 0; z < n[2]; ++z)
    for (int y = 0; y < n[1]; ++y)
      for (int x = 0; x < n[0]; ++x) {
        if (!keep[static_cast<std::size_t>(cell_id(x, y, z))]) continue;
        ++out.cells;
        for (const auto& p : perms) {
          int c[3] = {0, 0, 0};
          int v[4];
          v[0] = corner_index(x, y, z);
          for (int k = 0; k < 3; ++k) {
            c[p[k]] = 1;
            v[k + 1] = corner_index(x + c[0], y + c[1], z + c[2]);
          }
          Eigen::Matrix3d D;
          for (int k = 0; k < 3; ++k)
            D.col(k) = (pts[static_cast<std::size_t>(v[k + 1])] - pts[static_cast<std::size_t>(v[0])]).transpose();
          if (D.determinant() < 0) std::swap(v[1], v[2]);
          tets.emplace_back(v[0], v[1], v[2], v[3]);
        }
      }
  out.X.resize(static_cast<Index>(pts.size()), 3);
  for (std::size_t i = 0; i < pts.size(); ++i) out.X.row(static_cast<Index>(i)) = pts[i];
  out.T.resize(static_cast<Index>(tets.size()), 4);
  for (std::size_t t = 0; t < tets.size(); ++t) out.T.row(static_cast<Index>(t)) = tets[t].transpose();
  for (Index t = 0; t < out.T.rows(); ++t) {
    const Eigen::Vector3d a = out.X.row(out.T(t, 0)), b = out.X.row(out.T(t, 1)), c = out.X.row(out.T(t, 2)),
                          d = out.X.row(out.T(t, 3));
    FASTCD_ENSURE((b - a).cross(c - a).dot(d - a) > 0, "voxel_mesh: tet ", t, " is not positively oriented");
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace fastcd
