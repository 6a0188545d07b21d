#include "test_util.hpp"

namespace fastcd {
namespace test_check {

TEST(Check, DimensionOutsideTwoOrThreeIsRejected) {
  test::expect_throw_with<std::invalid_argument>([] { check_dim(4, "f"); }, "dimension must be 2 or 3, got 4");
  EXPECT_NO_THROW(check_dim(2, "f"));
  EXPECT_NO_THROW(check_dim(3, "f"));
}

TEST(Check, MeshChecksNameTheOffendingEntry) {
  MatrixXd X = MatrixXd::Zero(3, 2);
  MatrixXi T(1, 3);
  T << 0, 1, 5;
  test::expect_throw_with<std::invalid_argument>([&] { check_mesh(X, T, "f"); }, "T(0, 2) = 5 is out of range [0, 3)");
  T << 0, 1, 2;
  MatrixXi T4(1, 4);
  T4 << 0, 1, 2, 0;
  test::expect_throw_with<std::invalid_argument>([&] { check_mesh(X, T4, "f"); }, "T must be #T x 3");
  X(1, 1) = std::nan("");
  test::expect_throw_with<std::invalid_argument>([&] { check_mesh(X, T, "f"); }, "X(1, 1) is not finite");
}

}  // namespace test_check
}  // namespace fastcd
