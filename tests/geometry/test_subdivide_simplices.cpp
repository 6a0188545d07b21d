#include "fastcd/geometry/subdivide_simplices.hpp"

#include "test_util.hpp"

namespace fastcd {
namespace test_subdivide_simplices {

TEST(SubdivideSimplices, ChildrenTileTheParentsConformingAndOriented) {
  for (int dim : {2, 3}) {
    const Mesh m = test::mesh_for(dim);
    const Mesh r = subdivide_simplices(m.X, m.T);
    const Index children = dim == 2 ? 4 : 8;
    ASSERT_EQ(r.T.rows(), children * m.T.rows());
    EXPECT_TRUE(r.X.topRows(m.X.rows()) == m.X);
    // Every child has positive measure and the children of each parent fill it exactly.
    const VectorXd vp = volume(m.X, m.T), vc = volume(r.X, r.T);
    EXPECT_GT(vc.minCoeff(), 0.0);
    for (Index e = 0; e < m.T.rows(); ++e)
      EXPECT_NEAR(vc.segment(e * children, children).sum(), vp(e), 1e-12 * vp(e)) << dim << "D parent " << e;
    // Conforming: every inner facet is shared by two children, so the boundary is the parent
    // boundary split (4x the facets in 3D, 2x the edges in 2D); one vertex per edge.
    const Index bf = boundary_facets(m.T).F.rows(), bfr = boundary_facets(r.T).F.rows();
    EXPECT_EQ(bfr, (dim == 2 ? 2 : 4) * bf);
    const Mesh again = subdivide_simplices(r.X, r.T);
    EXPECT_EQ(again.T.rows(), children * r.T.rows());
  }
  test::expect_throw_with<std::invalid_argument>(
      [] { subdivide_simplices(MatrixXd::Zero(3, 3), MatrixXi::Constant(1, 4, 7)); }, "subdivide_simplices");
}

}  // namespace test_subdivide_simplices
}  // namespace fastcd
