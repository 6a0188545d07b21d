#pragma once
// Small closed surfaces for the meshing tests.
#include <Eigen/Core>

#include "fastcd/common/types.hpp"

namespace fastcd::test {

/// The cube [0, 1]^3 (offset by `o`) as 8 vertices and 12 outward triangles.
inline void unit_cube_surface(MatrixXd& V, MatrixXi& F, const Eigen::RowVector3d& o = Eigen::RowVector3d::Zero()) {
  V.resize(8, 3);
  for (int v = 0; v < 8; ++v) V.row(v) = Eigen::RowVector3d(v & 1, (v >> 1) & 1, (v >> 2) & 1) + o;
  F.resize(12, 3);
  F << 0, 2, 1, 1, 2, 3,  // z = 0 (normal -z)
      4, 5, 6, 5, 7, 6,   // z = 1
      0, 1, 4, 1, 5, 4,   // y = 0
      2, 6, 3, 3, 6, 7,   // y = 1
      0, 4, 2, 2, 4, 6,   // x = 0
      1, 3, 5, 3, 7, 5;   // x = 1
}

}  // namespace fastcd::test
