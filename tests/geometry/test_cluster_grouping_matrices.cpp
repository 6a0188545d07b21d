#include "test_util.hpp"

namespace fastcd {
namespace test_cluster_grouping_matrices {

class ClusterGroupingTest : public ::testing::TestWithParam<int> {};

TEST_P(ClusterGroupingTest, SumsAndVolumeWeightedAverages) {
  const Mesh m = test::mesh_for(GetParam());
  VectorXi l(m.T.rows());
  for (Index e = 0; e < l.size(); ++e) l(e) = static_cast<int>(e % 4);
  const ClusterGrouping g = cluster_grouping_matrices(l, m.X, m.T);
  ASSERT_EQ(g.G.rows(), 4);
  const VectorXd ones = VectorXd::Ones(m.T.rows());
  for (int c = 0; c < 4; ++c) EXPECT_DOUBLE_EQ((g.G * ones)(c), double((l.array() == c).count()));
  EXPECT_LT(((g.Gm * ones).array() - 1.0).abs().maxCoeff(), 1e-14);  // averages of 1 are 1
  EXPECT_NEAR(g.mc.sum(), volume(m.X, m.T).cwiseAbs().sum(), 1e-14);
}

INSTANTIATE_TEST_SUITE_P(Dim, ClusterGroupingTest, ::testing::Values(2, 3));

TEST(ClusterGrouping, EmptyClusterGetsZeroRowAndBadLabelsThrow) {
  const Mesh m = test::mesh2d();
  VectorXi l = VectorXi::Zero(m.T.rows());
  l(0) = 2;  // cluster 1 is empty
  const ClusterGrouping g = cluster_grouping_matrices(l, m.X, m.T);
  EXPECT_EQ(g.mc(1), 0.0);
  EXPECT_EQ(SparseMatrix(g.Gm.row(1)).nonZeros(), 0);
  test::expect_throw_with<std::invalid_argument>([&] { cluster_grouping_matrices(VectorXi::Zero(3), m.X, m.T); },
                                                 "l has 3 entries");
  l(0) = -1;
  test::expect_throw_with<std::invalid_argument>([&] { cluster_grouping_matrices(l, m.X, m.T); },
                                                 "labels must be >= 0");
}

}  // namespace test_cluster_grouping_matrices
}  // namespace fastcd
