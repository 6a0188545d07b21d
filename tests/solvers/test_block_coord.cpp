#include "test_util.hpp"

namespace fastcd {
namespace test_block_coord {

TEST(BlockCoord, ZeroToleranceRunsExactlyMaxIter) {
  int calls = 0;
  auto local = [&](const VectorXd& x) {
    ++calls;
    return x;
  };
  auto global = [](const VectorXd& x, const VectorXd&) { return VectorXd(0.5 * x); };
  int it = -1;
  const VectorXd x = block_coord(VectorXd::Ones(3), global, local, 0.0, 10, &it);
  EXPECT_EQ(it, 10);
  EXPECT_EQ(calls, 10);
  EXPECT_NEAR(x(0), std::pow(0.5, 10), 1e-16);
}

TEST(BlockCoord, ToleranceStopsEarlyAndZeroIterationsCopies) {
  auto local = [](const VectorXd& x) { return x; };
  auto global = [](const VectorXd&, const VectorXd&) { return VectorXd(VectorXd::Constant(2, 3.0)); };  // fixed point
  int it = -1;
  block_coord(VectorXd::Zero(2), global, local, 1e-12, 50, &it);
  EXPECT_EQ(it, 2);
  const VectorXd x0 = VectorXd::Constant(2, 7.0);
  EXPECT_EQ(block_coord(x0, global, local, 0.0, 0), x0);
  test::expect_throw_with<std::invalid_argument>([&] { block_coord(x0, global, local, 0.0, -1); }, "max_iter");
}

}  // namespace test_block_coord
}  // namespace fastcd
