// The voxel fallback: winding numbers (closed, open, outside), kept cells, conforming positive
// tets that cover the skin, and every skin vertex embedded.
#include "fastcd/meshing/voxel.hpp"

#include <gtest/gtest.h>

#include "fastcd/geometry/boundary_facets.hpp"
#include "fastcd/geometry/embed_points.hpp"
#include "meshing/meshing_test_util.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_voxel {

TEST(WindingNumbers, OneInsideZeroOutsideAndFractionalAtAHole) {
  MatrixXd V;
  MatrixXi F;
  test::unit_cube_surface(V, F);
  MatrixXd P(3, 3);
  P << 0.5, 0.5, 0.5, 2, 0.5, 0.5, 0.1, 0.9, 0.3;
  const VectorXd w = winding_numbers(V, F, P);
  EXPECT_NEAR(w[0], 1.0, 1e-12);
  EXPECT_NEAR(w[1], 0.0, 1e-12);
  EXPECT_NEAR(w[2], 1.0, 1e-12);
  const MatrixXi open = F.bottomRows(10);  // the z = 0 face removed: the centre sees 5/6 of a sphere
  EXPECT_NEAR(winding_numbers(V, open, P.topRows(1))[0], 5.0 / 6.0, 1e-12);
  EXPECT_NEAR(winding_numbers(V, F.rowwise().reverse(), P.topRows(1))[0], -1.0, 1e-12);
}

TEST(VoxelMesh, FillsAClosedCubeWithConformingPositiveTets) {
  MatrixXd V;
  MatrixXi F;
  test::unit_cube_surface(V, F);
  VoxelOptions o;
  o.resolution = 4;
  const VoxelMesh m = voxel_mesh(V, F, o);
  EXPECT_DOUBLE_EQ(m.cell_size, 0.25);
  EXPECT_EQ(m.T.rows(), 6 * m.cells);
  double volume = 0;
  for (Index t = 0; t < m.T.rows(); ++t) {
    const Eigen::Vector3d a = m.X.row(m.T(t, 0)), b = m.X.row(m.T(t, 1)), c = m.X.row(m.T(t, 2)),
                          d = m.X.row(m.T(t, 3));
    const double v = (b - a).cross(c - a).dot(d - a) / 6;
    ASSERT_GT(v, 0) << "tet " << t;
    volume += v;
  }
  EXPECT_NEAR(volume, m.cells * 0.25 * 0.25 * 0.25, 1e-12);
  EXPECT_GE(m.cells, 64);         // the 4^3 cells inside, plus some holding the corners
  EXPECT_GE(m.inside_cells, 56);  // (those holding a corner are counted as holding a vertex)
  // Conforming: every interior face is shared by exactly two tets, so the boundary is closed.
  const BoundaryFacets bf = boundary_facets(m.T);
  EXPECT_GT(bf.F.rows(), 0);
  // Every surface vertex lies inside a tet (embedded with non-negative barycentrics).
  const Embedding e = embed_points(m.X, m.T, V);
  EXPECT_EQ(e.distance.maxCoeff(), 0.0);
  EXPECT_LT((MatrixXd(e.E * m.X) - V).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(VoxelMesh, KeepsAnOpenSheetAndRefusesBadInput) {
  // A flat open square: nothing is inside, but the cells holding its vertices (and those whose
  // centre lies on it, winding number exactly 1/2) are kept: all within a cell of the sheet.
  MatrixXd V(4, 3);
  V << 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0;
  MatrixXi F(2, 3);
  F << 0, 1, 3, 0, 3, 2;
  const VoxelMesh m = voxel_mesh(V, F);
  EXPECT_GE(m.cells, 4);
  EXPECT_LE(m.X.col(2).cwiseAbs().maxCoeff(), 1.5 * m.cell_size + 1e-12);
  const Embedding e = embed_points(m.X, m.T, V);
  EXPECT_EQ(e.distance.maxCoeff(), 0.0);
  VoxelOptions o;
  o.resolution = 1;
  test::expect_throw_with<std::invalid_argument>([&] { voxel_mesh(V, F, o); }, "resolution must lie in [2, 256]");
  MatrixXd flat = MatrixXd::Zero(4, 3);
  test::expect_throw_with<std::invalid_argument>([&] { voxel_mesh(flat, F); }, "no extent");
  MatrixXi bad = F;
  bad(1, 2) = 9;
  test::expect_throw_with<std::invalid_argument>([&] { voxel_mesh(V, bad); }, "out of range");
}

}  // namespace test_voxel
}  // namespace fastcd
