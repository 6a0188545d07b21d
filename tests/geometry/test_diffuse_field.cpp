#include "test_util.hpp"

namespace fastcd {
namespace test_diffuse_field {

class DiffuseField : public ::testing::TestWithParam<int> {};

TEST_P(DiffuseField, SeedsClampedNormalisedAndMaximumPrinciple) {
  const Mesh m = test::mesh_for(GetParam());
  const VectorXi bI = boundary_vertices(m.T);
  MatrixXd phi(bI.size(), 2);
  phi.col(0).setOnes();
  phi.col(1) = VectorXd::LinSpaced(bI.size(), -1.0, 2.0);
  const MatrixXd raw = diffuse_field(m.X, m.T, bI, phi, 0.1, false);
  for (Index k = 0; k < bI.size(); ++k) EXPECT_EQ(raw.row(bI(k)), phi.row(k));
  EXPECT_TRUE(raw.allFinite());
  const MatrixXd W = diffuse_field(m.X, m.T, bI, phi);  // default dt, normalised
  EXPECT_TRUE(W.allFinite());
  for (Index j = 0; j < 2; ++j) {
    EXPECT_NEAR(W.col(j).minCoeff(), 0.0, 1e-15);
    EXPECT_NEAR(W.col(j).maxCoeff(), 1.0, 1e-15);
  }
}

INSTANTIATE_TEST_SUITE_P(Dim, DiffuseField, ::testing::Values(2, 3));

TEST(DiffuseField, MaximumPrincipleOnNonObtuseBeam) {
  // Right triangles: the system is an M-matrix, so unit seeds give values in [0, 1].
  const Mesh b = beam();
  const VectorXi bI = boundary_vertices(b.T);
  const MatrixXd raw = diffuse_field(b.X, b.T, bI, MatrixXd::Ones(bI.size(), 1), 1.0, false);
  EXPECT_GE(raw.minCoeff(), 0.0);
  EXPECT_LE(raw.maxCoeff(), 1.0 + 1e-14);
}

TEST(DiffuseField, RejectsBadSeeds) {
  const Mesh m = test::mesh2d();
  VectorXi bI(2);
  bI << 0, 0;
  test::expect_throw_with<std::invalid_argument>([&] { diffuse_field(m.X, m.T, bI, MatrixXd::Ones(2, 1), 1.0); },
                                                 "listed twice");
  bI << 0, 99;
  test::expect_throw_with<std::invalid_argument>([&] { diffuse_field(m.X, m.T, bI, MatrixXd::Ones(2, 1), 1.0); },
                                                 "bI[1] = 99");
  test::expect_throw_with<std::invalid_argument>(
      [&] { diffuse_field(m.X, m.T, VectorXi::Zero(1), MatrixXd::Ones(2, 1), 1.0); }, "phi must have one row per seed");
  test::expect_throw_with<std::invalid_argument>(
      [&] { diffuse_field(m.X, m.T, VectorXi::Zero(1), MatrixXd::Ones(1, 1), -1.0); }, "dt must be");
}

}  // namespace test_diffuse_field
}  // namespace fastcd
