#include "fastcd/geometry/triangulated_grid.hpp"

#include <Eigen/Dense>

#include "fastcd/common/check.hpp"
#include "fastcd/geometry/normalize_and_center.hpp"

namespace fastcd {

Mesh triangulated_grid(int nx, int ny) {
  FASTCD_CHECK(nx >= 2 && ny >= 2, "need nx, ny >= 2, got ", nx, ", ", ny);
  Mesh m;
  m.X.resize(static_cast<Index>(nx) * ny, 2);
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) m.X.row(x + nx * y) << double(x) / (nx - 1), double(y) / (ny - 1);
  m.T.resize(2 * static_cast<Index>(nx - 1) * (ny - 1), 3);
  for (int y = 0; y < ny - 1; ++y)
    for (int x = 0; x < nx - 1; ++x) {
      const int sw = x + nx * y, se = x + 1 + nx * y, ne = x + 1 + nx * (y + 1), nw = x + nx * (y + 1);
      const Index f = 2 * (x + static_cast<Index>(nx - 1) * y);
      m.T.row(f) << sw, se, nw;
      m.T.row(f + 1) << se, ne, nw;
    }
  return m;
}

Mesh tetrahedralized_grid(int nx, int ny, int nz) {
  FASTCD_CHECK(nx >= 2 && ny >= 2 && nz >= 2, "need nx, ny, nz >= 2, got ", nx, ", ", ny, ", ", nz);
  Mesh m;
  auto id = [&](int x, int y, int z) { return x + nx * (y + ny * z); };
  m.X.resize(static_cast<Index>(nx) * ny * nz, 3);
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x)
        m.X.row(id(x, y, z)) << double(x) / (nx - 1), double(y) / (ny - 1), double(z) / (nz - 1);
  static constexpr int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  m.T.resize(6 * static_cast<Index>(nx - 1) * (ny - 1) * (nz - 1), 4);
  Index t = 0;
  for (int z = 0; z < nz - 1; ++z)
    for (int y = 0; y < ny - 1; ++y)
      for (int x = 0; x < nx - 1; ++x)
        for (const auto& p : perms) {
          int c[3] = {0, 0, 0};
          int v[4];
          v[0] = id(x, y, z);
          for (int k = 0; k < 3; ++k) {
            c[p[k]] = 1;
            v[k + 1] = id(x + c[0], y + c[1], z + c[2]);
          }
          Eigen::Matrix3d D;
          for (int k = 0; k < 3; ++k) D.col(k) = (m.X.row(v[k + 1]) - m.X.row(v[0])).transpose();
          if (D.determinant() < 0) std::swap(v[1], v[2]);
          m.T.row(t++) << v[0], v[1], v[2], v[3];
        }
  return m;
}

Mesh beam(int width, int height, double thickness) {
  FASTCD_CHECK(thickness > 0, "thickness must be > 0, got ", thickness);
  Mesh g = triangulated_grid(width, height);
  g.X.col(1) *= thickness;
  MatrixXd R(g.X.rows(), 2);
  R.col(0) = -g.X.col(1);
  R.col(1) = g.X.col(0);
  g.X = normalize_and_center(R).X;
  return g;
}

}  // namespace fastcd
