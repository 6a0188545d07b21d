#include <random>

#include "test_util.hpp"

namespace fastcd {
namespace {

template <int d>
void check_polar_batch(unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> N;
  const Index count = 200;
  VectorXd F = VectorXd::NullaryExpr(count * d * d, [&] { return N(gen); });
  // Make a quarter of them inverted and one exactly singular.
  const PolarDecomposition p = polar_svd(F, d);
  using Mat = Eigen::Matrix<double, d, d, Eigen::RowMajor>;
  for (Index e = 0; e < count; ++e) {
    const Mat Fe = Eigen::Map<const Mat>(F.data() + e * d * d);
    const Mat R = Eigen::Map<const Mat>(p.R.data() + e * d * d);
    const Mat S = Eigen::Map<const Mat>(p.S.data() + e * d * d);
    EXPECT_LT((R.transpose() * R - Mat::Identity()).cwiseAbs().maxCoeff(), 1e-13);
    EXPECT_NEAR(R.determinant(), 1.0, 1e-13);
    EXPECT_LT((S - S.transpose()).cwiseAbs().maxCoeff(), 1e-13);
    EXPECT_LT((R * S - Fe).cwiseAbs().maxCoeff(), 1e-12);
    // R is the closest rotation: reference from a full SVD with the sign fix.
    Eigen::JacobiSVD<Eigen::Matrix<double, d, d>> svd(Fe, Eigen::ComputeFullU | Eigen::ComputeFullV);
    Eigen::Matrix<double, d, d> U = svd.matrixU();
    if ((U * svd.matrixV().transpose()).determinant() < 0) U.col(d - 1) *= -1.0;
    const Eigen::Matrix<double, d, d> Rref = U * svd.matrixV().transpose();
    EXPECT_LT((R - Rref).cwiseAbs().maxCoeff(), 1e-12) << "element " << e;
    if (Fe.determinant() > 0) {
      EXPECT_GT(Eigen::SelfAdjointEigenSolver<Mat>(S).eigenvalues().minCoeff(), -1e-12);
    }
  }
}

TEST(PolarSvd, RandomAndInverted2D) { check_polar_batch<2>(1); }
TEST(PolarSvd, RandomAndInverted3D) { check_polar_batch<3>(2); }

TEST(PolarSvd, SimkitExamplesAndEdgeCases) {
  VectorXd F(4);
  F << -2, 0, 0, 1;  // diag(-2, 1): R = -I, S = diag(2, -1)
  const PolarDecomposition p = polar_svd(F, 2);
  EXPECT_LT((p.R - VectorXd((VectorXd(4) << -1, 0, 0, -1).finished())).norm(), 1e-15);
  EXPECT_LT((p.S - VectorXd((VectorXd(4) << 2, 0, 0, -1).finished())).norm(), 1e-15);
  const PolarDecomposition z = polar_svd(VectorXd::Zero(4), 2);  // every rotation equally close
  EXPECT_LT((z.R - VectorXd((VectorXd(4) << 1, 0, 0, 1).finished())).norm(), 1e-15);
  const PolarDecomposition z3 = polar_svd(VectorXd::Zero(9), 3);
  Eigen::Matrix3d R3 = Eigen::Map<const Eigen::Matrix3d>(z3.R.data());
  EXPECT_NEAR(R3.determinant(), 1.0, 1e-14);
  // Row-major layout: a rotation by +90 degrees is [[0, -1], [1, 0]] -> [0, -1, 1, 0].
  VectorXd Rot(4);
  Rot << 0, -1, 1, 0;
  EXPECT_LT((polar_svd(Rot, 2).R - Rot).norm(), 1e-15);
}

TEST(PolarSvd, RejectsBadInput) {
  test::expect_throw_with<std::invalid_argument>([] { polar_svd(VectorXd::Zero(5), 2); }, "not a multiple of 4");
  test::expect_throw_with<std::invalid_argument>([] { polar_svd(VectorXd::Zero(16), 4); }, "dimension must be 2 or 3");
  VectorXd F = VectorXd::Zero(9);
  F(4) = std::nan("");
  test::expect_throw_with<std::invalid_argument>([&] { polar_svd(F, 3); }, "not finite");
}

}  // namespace
}  // namespace fastcd
