#include "test_util.hpp"

namespace fastcd {
namespace test_boundary_facets {

TEST(BoundaryFacets, BeamHas86BoundaryVertices) {
  const Mesh b = beam();
  EXPECT_EQ(boundary_vertices(b.T).size(), 86);
  const BoundaryFacets bf = boundary_facets(b.T);
  EXPECT_EQ(bf.F.rows(), 2 * 39 + 2 * 4);
  // Outward: each edge's right-hand normal points away from its element's third corner.
  for (Index i = 0; i < bf.F.rows(); ++i) {
    const Eigen::Vector2d a = b.X.row(bf.F(i, 0)), c = b.X.row(bf.F(i, 1));
    const Eigen::Vector2d o = b.X.row(b.T(bf.J(i), bf.K(i)));
    const Eigen::Vector2d nrm(c.y() - a.y(), a.x() - c.x());
    EXPECT_GT(nrm.dot(a - o), 0.0);
  }
}

TEST(BoundaryFacets, TetGridSurfaceIsClosedAndOutward) {
  const Mesh m = tetrahedralized_grid(3, 4, 2);
  const BoundaryFacets bf = boundary_facets(m.T);
  // each boundary square is split into 2 triangles
  EXPECT_EQ(bf.F.rows(), 2 * 2 * (2 * 3 + 2 * 1 + 3 * 1));
  double signed_volume = 0.0;  // divergence theorem: sum of (a . (b x c)) / 6 = enclosed volume
  for (Index i = 0; i < bf.F.rows(); ++i) {
    const Eigen::Vector3d a = m.X.row(bf.F(i, 0)), b = m.X.row(bf.F(i, 1)), c = m.X.row(bf.F(i, 2));
    signed_volume += a.dot(b.cross(c)) / 6.0;
  }
  EXPECT_NEAR(signed_volume, 1.0, 1e-12);
  EXPECT_EQ(boundary_vertices(m.T).size(), 3 * 4 * 2);  // every vertex of a 2-layer grid is on the surface
}

TEST(BoundaryFacets, RejectsBadInput) {
  test::expect_throw_with<std::invalid_argument>([] { boundary_facets(MatrixXi::Zero(2, 2)); }, "got 2 x 2");
  MatrixXi T(1, 3);
  T << 0, -1, 2;
  test::expect_throw_with<std::invalid_argument>([&] { boundary_facets(T); }, "negative index");
}

}  // namespace test_boundary_facets
}  // namespace fastcd
