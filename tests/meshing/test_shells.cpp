// Surfaces of several shells filled shell by shell: nested and crossing shells each become a
// solid of their own, the input vertices stay first and unchanged, inward shells are turned,
// and a bad shell is named with the input's indices.
#include "fastcd/meshing/shells.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "io/io_test_util.hpp"
#include "meshing/meshing_test_util.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_shells {

// Two cubes as one surface: the second's vertices and triangles follow the first's.
void two_cubes(MatrixXd& V, MatrixXi& F, double scale_a, const Eigen::RowVector3d& offset_b) {
  MatrixXd A, B;
  MatrixXi FA, FB;
  test::unit_cube_surface(A, FA);
  test::unit_cube_surface(B, FB, offset_b);
  V.resize(16, 3);
  V << A * scale_a, B;
  F.resize(24, 3);
  F << FA, FB.array() + 8;
}

double tet_volume(const MatrixXd& X, const MatrixXi& T, Index t) {
  const Eigen::Vector3d a = X.row(T(t, 0)), b = X.row(T(t, 1)), c = X.row(T(t, 2)), d = X.row(T(t, 3));
  return (b - a).cross(c - a).dot(d - a) / 6;
}

// Every tet lies in one shell: its corners are that shell's surface vertices or its own
// interior points; the tets of each shell fill exactly that shell's volume.
void expect_solids(const ShellTetMesh& m, const MatrixXd& V, double volume_a, double volume_b) {
  ASSERT_TRUE(test::same_matrix(m.tets.X.topRows(V.rows()), V));
  EXPECT_EQ(m.tets.surface_vertices, V.rows());
  double va = 0, vb = 0;
  std::set<int> interior_a, interior_b;
  for (Index t = 0; t < m.tets.T.rows(); ++t) {
    const double v = tet_volume(m.tets.X, m.tets.T, t);
    EXPECT_GT(v, 0) << "tet " << t;
    bool a = false, b = false;
    for (int k = 0; k < 4; ++k) {
      const int i = m.tets.T(t, k);
      if (i < 8) a = true;
      if (i >= 8 && i < 16) b = true;
    }
    EXPECT_NE(a, b) << "tet " << t << " joins the two shells";
    for (int k = 0; k < 4; ++k)
      if (m.tets.T(t, k) >= 16) (a ? interior_a : interior_b).insert(m.tets.T(t, k));
    (a ? va : vb) += v;
  }
  for (int i : interior_a) EXPECT_EQ(interior_b.count(i), 0u) << "interior point " << i << " in both shells";
  EXPECT_NEAR(va, volume_a, 1e-12 * volume_a);
  EXPECT_NEAR(vb, volume_b, 1e-12 * volume_b);
}

TEST(TetrahedralizeShells, NestedShellsAreEachASolid) {
  MatrixXd V;
  MatrixXi F;
  two_cubes(V, F, 3.0, Eigen::RowVector3d(1, 1, 1));  // a unit cube inside a 3-cube: an eye in a head
  const ShellTetMesh m = tetrahedralize_shells(V, F);
  EXPECT_EQ(m.shells, 2);
  EXPECT_EQ(m.reversed, 0);
  EXPECT_TRUE(test::same_matrix(m.F, F));
  expect_solids(m, V, 27.0, 1.0);  // the outer solid is whole (no cavity), the inner one overlaps it
}

TEST(TetrahedralizeShells, CrossingShellsAreEachASolid) {
  MatrixXd V;
  MatrixXi F;
  two_cubes(V, F, 1.0, Eigen::RowVector3d(0.5, 0.25, 0.5));
  // As one surface the shells cross: the mesher alone refuses it.
  EXPECT_THROW(tetrahedralize(V, F), std::invalid_argument);
  const ShellTetMesh m = tetrahedralize_shells(V, F);
  EXPECT_EQ(m.shells, 2);
  expect_solids(m, V, 1.0, 1.0);
}

TEST(TetrahedralizeShells, InwardShellsAreTurned) {
  MatrixXd V;
  MatrixXi F;
  two_cubes(V, F, 1.0, Eigen::RowVector3d(3, 0, 0));
  F.bottomRows(12) = F.bottomRows(12).rowwise().reverse().eval();
  const ShellTetMesh m = tetrahedralize_shells(V, F);
  EXPECT_EQ(m.reversed, 1);
  EXPECT_TRUE(test::same_matrix(m.F.topRows(12), F.topRows(12)));
  EXPECT_TRUE(test::same_matrix(m.F.bottomRows(12), F.bottomRows(12).rowwise().reverse().eval()));
  expect_solids(m, V, 1.0, 1.0);
}

TEST(TetrahedralizeShells, ABadShellIsNamedWithTheInputsIndices) {
  MatrixXd V;
  MatrixXi F;
  two_cubes(V, F, 1.0, Eigen::RowVector3d(3, 0, 0));
  // Shell 1 loses its last triangle (input vertices 11, 15, 13): a hole.
  const MatrixXi open = F.topRows(23);
  test::expect_throw_with<std::invalid_argument>([&] { tetrahedralize_shells(V, open); },
                                                 "shell 1 of 2 (11 triangles)");
  test::expect_throw_with<std::invalid_argument>([&] { tetrahedralize_shells(V, open); }, "vertices 11-13");
  MatrixXd W(17, 3);
  W << V, Eigen::RowVector3d(9, 9, 9);
  test::expect_throw_with<std::invalid_argument>([&] { tetrahedralize_shells(W, F); }, "vertex 16 is on no triangle");
}

}  // namespace test_shells
}  // namespace fastcd
