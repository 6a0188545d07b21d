#include "test_util.hpp"

namespace fastcd {
namespace test_triangulated_grid {

TEST(TriangulatedGrid, LibiglOrderingAndCounterClockwise) {
  const Mesh g = triangulated_grid(4, 3);
  ASSERT_EQ(g.X.rows(), 12);
  ASSERT_EQ(g.T.rows(), 12);
  EXPECT_EQ(g.X.row(5), Eigen::RowVector2d(1.0 / 3.0, 0.5));
  EXPECT_EQ(g.T.row(0), Eigen::RowVector3i(0, 1, 4));
  EXPECT_EQ(g.T.row(1), Eigen::RowVector3i(1, 5, 4));
  EXPECT_EQ(g.T.row(2), Eigen::RowVector3i(1, 2, 5));
  for (Index e = 0; e < g.T.rows(); ++e) {
    const Eigen::Vector2d a = g.X.row(g.T(e, 0)), b = g.X.row(g.T(e, 1)), c = g.X.row(g.T(e, 2));
    EXPECT_GT((b - a).x() * (c - a).y() - (b - a).y() * (c - a).x(), 0.0);
  }
  test::expect_throw_with<std::invalid_argument>([] { triangulated_grid(1, 3); }, "nx, ny >= 2");
}

TEST(TriangulatedGrid, TutorialBeam) {
  const Mesh b = beam();
  EXPECT_EQ(b.X.rows(), 200);
  EXPECT_EQ(b.T.rows(), 312);
  EXPECT_NEAR(b.X.col(0).minCoeff(), -0.1, 1e-15);
  EXPECT_NEAR(b.X.col(0).maxCoeff(), 0.1, 1e-15);
  EXPECT_NEAR(b.X.col(1).minCoeff(), -1.0, 1e-15);
  EXPECT_NEAR(b.X.col(1).maxCoeff(), 1.0, 1e-15);
  EXPECT_NEAR(volume(b.X, b.T).sum(), 0.4, 1e-14);
}

TEST(TetrahedralizedGrid, ConformingPositiveTets) {
  const Mesh m = tetrahedralized_grid(3, 3, 3);
  EXPECT_EQ(m.X.rows(), 27);
  EXPECT_EQ(m.T.rows(), 6 * 8);
  // Conforming: every interior face is shared by exactly two tets, so the boundary is only
  // the 6 box faces x 4 squares x 2 triangles.
  EXPECT_EQ(boundary_facets(m.T).F.rows(), 48);
}

}  // namespace test_triangulated_grid
}  // namespace fastcd
