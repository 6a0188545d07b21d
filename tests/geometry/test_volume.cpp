#include "test_util.hpp"

namespace fastcd {
namespace test_volume {

TEST(Volume, EdgesTrianglesAndSignedTets) {
  MatrixXd V(4, 3);
  V << 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4;
  MatrixXi E(1, 2), F(1, 3), Tt(2, 4);
  E << 0, 1;
  F << 0, 1, 2;
  Tt << 0, 1, 2, 3, 0, 2, 1, 3;
  EXPECT_DOUBLE_EQ(volume(V, E)(0), 2.0);
  EXPECT_DOUBLE_EQ(volume(V, F)(0), 3.0);  // triangle embedded in 3D
  EXPECT_DOUBLE_EQ(volume(V, Tt)(0), 4.0);
  EXPECT_DOUBLE_EQ(volume(V, Tt)(1), -4.0);  // inverted order: signed
  MatrixXd V2 = V.leftCols(2);
  MatrixXi Fcw(1, 3);
  Fcw << 0, 2, 1;
  EXPECT_DOUBLE_EQ(volume(V2, Fcw)(0), 3.0);  // unsigned in 2D
}

TEST(Volume, TotalAreaOfGrids) {
  EXPECT_NEAR(volume(triangulated_grid(7, 5).X, triangulated_grid(7, 5).T).sum(), 1.0, 1e-14);
  const Mesh m = tetrahedralized_grid(3, 4, 5);
  const VectorXd v = volume(m.X, m.T);
  EXPECT_NEAR(v.sum(), 1.0, 1e-14);
  EXPECT_GT(v.minCoeff(), 0.0);  // all positively oriented
}

TEST(Volume, RejectsBadShapes) {
  MatrixXd V = MatrixXd::Zero(4, 2);
  MatrixXi T5 = MatrixXi::Zero(1, 5), T4(1, 4), Tbad(1, 3);
  T4 << 0, 1, 2, 3;
  Tbad << 0, 1, 9;
  test::expect_throw_with<std::invalid_argument>([&] { volume(V, T5); }, "got 1 x 5");
  test::expect_throw_with<std::invalid_argument>([&] { volume(V, T4); }, "tetrahedra need 3D");
  test::expect_throw_with<std::invalid_argument>([&] { volume(V, Tbad); }, "F(0, 2) = 9");
}

}  // namespace test_volume
}  // namespace fastcd
