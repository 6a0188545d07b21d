// Welding by position, surface checks (closed, manifold, oriented, self-intersections),
// triangle-triangle intersection and tet dihedral angles.
#include "fastcd/meshing/surface.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "fastcd/io/gltf_io.hpp"
#include "io/io_test_util.hpp"
#include "meshing/meshing_test_util.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_surface {

using Eigen::Vector3d;

// The cube with every face's vertices split (as an exporter does at UV seams): 24 vertices.
void split_cube(MatrixXd& V, MatrixXi& F) {
  MatrixXd V8;
  MatrixXi F8;
  test::unit_cube_surface(V8, F8);
  V.resize(36, 3);
  F.resize(12, 3);
  for (Index f = 0; f < 12; ++f)
    for (int k = 0; k < 3; ++k) {
      V.row(3 * f + k) = V8.row(F8(f, k));
      F(f, k) = static_cast<int>(3 * f + k);
    }
}

TEST(WeldSurface, JoinsSeamDuplicatesAndKeepsTheMap) {
  MatrixXd V;
  MatrixXi F;
  split_cube(V, F);
  V(5, 0) += 1e-9;  // within the default tolerance (1e-6 of the diagonal)
  const WeldedSurface w = weld_surface(V, F);
  EXPECT_EQ(w.V.rows(), 8);
  EXPECT_EQ(w.F.rows(), 12);
  EXPECT_EQ(w.collapsed, 0);
  for (Index v = 0; v < V.rows(); ++v) EXPECT_LT((w.V.row(w.map[v]) - V.row(v)).norm(), 1e-8) << v;
  for (Index f = 0; f < 12; ++f)
    for (int k = 0; k < 3; ++k) EXPECT_EQ(w.F(f, k), w.map[F(w.face[f], k)]);
  EXPECT_TRUE(check_surface(w.V, w.F).ok());
  // Each welded vertex is its group's first input vertex, bit for bit.
  for (Index r = 0; r < w.V.rows(); ++r) {
    Index first = 0;
    while (w.map[first] != r) ++first;
    EXPECT_EQ(w.V.row(r), V.row(first));
  }
}

TEST(WeldSurface, ToleranceDropsCollapsedAndDuplicateTriangles) {
  MatrixXd V(5, 3);
  V << 0, 0, 0, 1, 0, 0, 0, 1, 0, 0.01, 0, 0, 1, 1, 0;
  MatrixXi F(4, 3);
  F << 0, 1, 2, 0, 3, 2, 2, 1, 0, 1, 4, 2;
  const WeldedSurface exact = weld_surface(V, F, 0);
  EXPECT_EQ(exact.V.rows(), 5);
  EXPECT_EQ(exact.duplicates, 1);  // (2 1 0) repeats (0 1 2), reversed
  EXPECT_EQ(exact.F.rows(), 3);
  const WeldedSurface loose = weld_surface(V, F, 0.02);
  EXPECT_EQ(loose.V.rows(), 4);
  EXPECT_EQ(loose.map[3], 0);
  EXPECT_EQ(loose.collapsed, 1);  // (0 3 2) -> (0 0 2)
  EXPECT_EQ(loose.F.rows(), 2);
  MatrixXi bad = F;
  bad(0, 0) = 7;
  test::expect_throw_with<std::invalid_argument>([&] { weld_surface(V, bad); }, "outside [0, 5)");
}

TEST(WeldSurface, KhronosSkinsWeldToClosedManifolds) {
  struct Case {
    const char* file;
    Index render, welded;
  };
  for (const Case c :
       {Case{"RiggedSimple.glb", 160, 96}, Case{"RiggedFigure.glb", 370, 130}, Case{"Fox.glb", 1728, 290}}) {
    const GltfCharacter ch = read_gltf(test::shared_data(std::string("khronos-gltf/") + c.file));
    const GltfSkinnedMesh& m = ch.meshes[0];
    ASSERT_EQ(m.V.rows(), c.render) << c.file;
    const WeldedSurface w = weld_surface(m.V, m.F);
    EXPECT_EQ(w.V.rows(), c.welded) << c.file;
    const SurfaceDefects d = check_surface(w.V, w.F);
    EXPECT_TRUE(d.ok()) << c.file << ": " << d.describe();
    EXPECT_GT(d.volume, 0) << c.file;
    EXPECT_EQ(d.components, 1) << c.file;
  }
}

TEST(CheckSurface, ACubeIsClosedWithUnitVolume) {
  MatrixXd V;
  MatrixXi F;
  test::unit_cube_surface(V, F);
  const SurfaceDefects d = check_surface(V, F);
  EXPECT_TRUE(d.ok()) << d.describe();
  EXPECT_NEAR(d.volume, 1, 1e-15);
  EXPECT_EQ(d.components, 1);
  EXPECT_EQ(d.describe(), "");
}

TEST(CheckSurface, NamesHolesFoldsFlipsAndCrossings) {
  MatrixXd V;
  MatrixXi F;
  test::unit_cube_surface(V, F);
  {
    const MatrixXi open = F.topRows(11);
    const SurfaceDefects d = check_surface(V, open);
    EXPECT_EQ(d.open_edges.size(), 3u);
    EXPECT_NE(d.describe().find("3 open edges: the surface has holes (vertices "), std::string::npos) << d.describe();
  }
  {
    MatrixXi flipped = F;
    std::swap(flipped(4, 1), flipped(4, 2));
    const SurfaceDefects d = check_surface(V, flipped);
    EXPECT_EQ(d.flipped_edges.size(), 3u);  // all three of its edges, against correctly wound neighbours
    EXPECT_TRUE(d.open_edges.empty());
    EXPECT_NE(d.describe().find("inconsistently oriented"), std::string::npos);
  }
  {
    MatrixXd V2(9, 3);
    V2 << V, 0.5, 0.5, 0.5;
    MatrixXi fin(13, 3);
    fin << F, 1, 2, 8;  // a fin inside on the diagonal edge 1-2 of the bottom face
    const SurfaceDefects d = check_surface(V2, fin);
    EXPECT_EQ(d.non_manifold_edges.size(), 1u);
    EXPECT_EQ(d.non_manifold_edges[0], (std::array<int, 2>{1, 2}));
    EXPECT_EQ(d.open_edges.size(), 2u);  // the fin's free edges
  }
  {
    MatrixXd V1, V2;
    MatrixXi F1, F2;
    test::unit_cube_surface(V1, F1);
    test::unit_cube_surface(V2, F2, Eigen::RowVector3d(0.5, 0.25, 0.3));
    MatrixXd VV(16, 3);
    VV << V1, V2;
    MatrixXi FF(24, 3);
    FF << F1, (F2.array() + 8).matrix();
    const SurfaceDefects d = check_surface(VV, FF);
    EXPECT_EQ(d.components, 2);
    EXPECT_TRUE(d.open_edges.empty() && d.flipped_edges.empty());
    ASSERT_FALSE(d.intersecting.empty());
    for (const auto& p : d.intersecting) EXPECT_TRUE(p[0] < 12 && p[1] >= 12) << p[0] << " " << p[1];
    EXPECT_NE(d.describe().find("self-intersections (triangles "), std::string::npos);
    // Apart, the two cubes are two clean components.
    test::unit_cube_surface(V2, F2, Eigen::RowVector3d(3, 0, 0));
    VV << V1, V2;
    const SurfaceDefects apart = check_surface(VV, FF);
    EXPECT_TRUE(apart.ok()) << apart.describe();
    EXPECT_EQ(apart.components, 2);
    EXPECT_NEAR(apart.volume, 2, 1e-14);
  }
}

TEST(TrianglesIntersect, GeneralCoplanarAndTouching) {
  const Vector3d a0(0, 0, 0), a1(1, 0, 0), a2(0, 1, 0);
  EXPECT_TRUE(triangles_intersect(a0, a1, a2, {0.2, 0.2, -1}, {0.2, 0.2, 1}, {0.3, 0.9, 0}));    // pierces
  EXPECT_FALSE(triangles_intersect(a0, a1, a2, {0.2, 0.2, 0.1}, {0.2, 0.2, 1}, {0.3, 0.9, 1}));  // above
  EXPECT_FALSE(triangles_intersect(a0, a1, a2, {1, 1, -1}, {1, 1, 1}, {2, 2, 0}));               // beside
  EXPECT_TRUE(triangles_intersect(a0, a1, a2, {0.2, 0.2, 0}, {2, 0.2, 0}, {0.2, 2, 0}));         // coplanar overlap
  EXPECT_TRUE(triangles_intersect(a0, a1, a2, {0.1, 0.1, 0}, {0.2, 0.1, 0}, {0.1, 0.2, 0}));     // coplanar inside
  EXPECT_FALSE(triangles_intersect(a0, a1, a2, {1, 1, 0}, {2, 1, 0}, {1, 2, 0}));                // coplanar apart
  EXPECT_TRUE(triangles_intersect(a0, a1, a2, {0.25, 0.25, 0}, {0.25, 0.25, 1}, {1, 1, 1}));     // touches
}

TEST(MinDihedralAngles, RegularAndCornerTets) {
  MatrixXd X(5, 3);
  X << 1, 1, 1, 1, -1, -1, -1, 1, -1, -1, -1, 1, 0, 0, 0;
  MatrixXi T(2, 4);
  T << 0, 1, 2, 3, 4, 0, 1, 2;
  const VectorXd a = min_dihedral_angles(X, T);
  EXPECT_NEAR(a[0], std::acos(1.0 / 3) * 180 / M_PI, 1e-12);
  MatrixXd C(4, 3);
  C << 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1;
  MatrixXi Tc(2, 4);
  Tc << 0, 1, 2, 3, 0, 2, 1, 3;  // either orientation
  const VectorXd c = min_dihedral_angles(C, Tc);
  EXPECT_NEAR(c[0], std::acos(1 / std::sqrt(3.0)) * 180 / M_PI, 1e-12);
  EXPECT_EQ(c[0], c[1]);
}

}  // namespace test_surface
}  // namespace fastcd
