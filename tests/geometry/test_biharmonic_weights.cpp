#include "test_util.hpp"

namespace fastcd {
namespace test_biharmonic_weights {

class BiharmonicWeights : public ::testing::TestWithParam<int> {};

TEST_P(BiharmonicWeights, PartitionOfUnityInterpolatingTheHandles) {
  const Mesh m = test::mesh_for(GetParam());
  const std::vector<std::vector<Index>> pins = {{0}, {m.X.rows() - 1}, {m.X.rows() / 2, m.X.rows() / 2 + 1}};
  const MatrixXd W = biharmonic_weights(m.X, m.T, pins);
  ASSERT_EQ(W.cols(), 3);
  EXPECT_LT((W.rowwise().sum().array() - 1.0).abs().maxCoeff(), 1e-10);
  for (std::size_t j = 0; j < pins.size(); ++j)
    for (Index v : pins[j]) {
      EXPECT_EQ(W(v, static_cast<Index>(j)), 1.0);
      EXPECT_NEAR(W.row(v).sum(), 1.0, 1e-15);
    }
  // Smooth: every weight stays within a modest band around [0, 1].
  EXPECT_GT(W.minCoeff(), -0.5);
  EXPECT_LT(W.maxCoeff(), 1.5);
  // Linear precision: for handles at vertices, the LBS of translations reproduces translations.
  const VectorXd x = W * VectorXd::Constant(3, 2.5);
  EXPECT_LT((x.array() - 2.5).abs().maxCoeff(), 1e-10);
}

INSTANTIATE_TEST_SUITE_P(Dim, BiharmonicWeights, ::testing::Values(2, 3));

TEST(BiharmonicWeights, RejectsBadHandles) {
  const Mesh m = test::mesh2d();
  test::expect_throw_with<std::invalid_argument>(
      [&] {
        biharmonic_weights(m.X, m.T, {{0}, {0}});
      },
      "pinned by handles 0 and 1");
  test::expect_throw_with<std::invalid_argument>(
      [&] {
        biharmonic_weights(m.X, m.T, {{0}, {}});
      },
      "handle 1 pins no vertex");
  test::expect_throw_with<std::invalid_argument>([&] { biharmonic_weights(m.X, m.T, {{999}}); }, "vertex 999");
}

}  // namespace test_biharmonic_weights
}  // namespace fastcd
