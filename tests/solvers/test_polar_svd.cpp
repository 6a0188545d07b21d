#include <limits>
#include <random>
#include <utility>

#include "test_util.hpp"

namespace fastcd {
namespace test_polar_svd {

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

Eigen::Matrix3d svd_rotation(const Eigen::Matrix3d& F) {
  Eigen::JacobiSVD<Eigen::Matrix3d> svd(F, Eigen::ComputeFullU | Eigen::ComputeFullV);
  Eigen::Matrix3d U = svd.matrixU();
  if ((U * svd.matrixV().transpose()).determinant() < 0) U.col(2) *= -1.0;
  return U * svd.matrixV().transpose();
}

using RowMat3 = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;

TEST(PolarSvd, FastRotationMatchesSvd3D) {
  // The batched rotation kernel (Horn quaternion + Newton) against the SVD on well-conditioned,
  // near-rotations, strongly anisotropic, inverted and rank-2 matrices.
  std::mt19937 gen(7);
  std::normal_distribution<double> N;
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  std::vector<Eigen::Matrix3d> cases;
  for (int i = 0; i < 300; ++i) cases.push_back(Eigen::Matrix3d::NullaryExpr([&] { return N(gen); }));
  for (int i = 0; i < 200; ++i) {
    const Eigen::Matrix3d Rot = Eigen::Quaterniond(N(gen), N(gen), N(gen), N(gen)).normalized().toRotationMatrix();
    const Eigen::Matrix3d P = Eigen::Matrix3d::NullaryExpr([&] { return 1e-3 * U(gen); });
    const Eigen::Vector3d s(std::pow(10.0, 3 * U(gen)), std::pow(10.0, 3 * U(gen)), std::pow(10.0, 3 * U(gen)));
    cases.push_back(Rot + P);                                                   // near-rotation
    cases.push_back(Rot * s.asDiagonal());                                      // anisotropic, cond up to 1e6
    cases.push_back(Rot * Eigen::Vector3d(1.0, 0.5, -0.2).asDiagonal());        // inverted
    cases.push_back(1e-8 * Rot * Eigen::Vector3d(2.0, 1.0, 0.0).asDiagonal());  // rank 2, tiny scale
    cases.push_back(1e8 * Rot);                                                 // huge scale
  }
  VectorXd F(9 * cases.size()), R;
  for (size_t i = 0; i < cases.size(); ++i) Eigen::Map<RowMat3>(F.data() + 9 * i) = cases[i];
  polar_rotations(F, 3, R);
  int fast = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Eigen::Matrix3d Ri = Eigen::Map<const RowMat3>(R.data() + 9 * i);
    EXPECT_LT((Ri - svd_rotation(cases[i])).cwiseAbs().maxCoeff(), 1e-10) << "case " << i << "\n" << cases[i];
    EXPECT_LT((Ri.transpose() * Ri - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff(), 1e-13);
    EXPECT_NEAR(Ri.determinant(), 1.0, 1e-13);
    double out[9];
    const bool took_fast = detail::closest_rotation_3x3(F.data() + 9 * i, out);
    fast += took_fast ? 1 : 0;
    // Random Gaussian matrices and near-rotations are well separated: always the fast path.
    if (i < 300 || (i - 300) % 5 == 0 || (i - 300) % 5 == 2) {
      EXPECT_TRUE(took_fast) << "case " << i;
    }
  }
  std::printf("fast path taken for %d of %zu matrices\n", fast, cases.size());
}

TEST(PolarSvd, FastRotationDeclinesIllDeterminedCases) {
  double R[9] = {0};
  const double zero[9] = {0};
  EXPECT_FALSE(detail::closest_rotation_3x3(zero, R));
  const double rank1[9] = {1, 0, 0, 0, 0, 0, 0, 0, 0};  // every rotation about x is equally close
  EXPECT_FALSE(detail::closest_rotation_3x3(rank1, R));
  // The batched kernel still returns a closest rotation (the SVD's choice).
  VectorXd F = Eigen::Map<const VectorXd>(rank1, 9), Rb;
  polar_rotations(F, 3, Rb);
  const Eigen::Matrix3d Rm = Eigen::Map<const RowMat3>(Rb.data());
  EXPECT_NEAR(Rm.determinant(), 1.0, 1e-13);
  EXPECT_NEAR(Rm(0, 0), 1.0, 1e-13);
}

TEST(PolarSvd, BatchedKernelMatchesScalarInAnyLayoutAndSplit) {
  // The SIMD kernel reads the fast solver's cluster layout (row i of cluster c at i * nr + 3 c);
  // its results match the one-matrix kernel and do not depend on how the batch is split
  // (odd counts, partial SIMD batches), including lanes that fall back to the SVD.
  std::mt19937 gen(11);
  std::normal_distribution<double> N;
  const Index count = 37, nr = 3 * count;
  MatrixXd Fc = MatrixXd::NullaryExpr(3, nr, [&] { return N(gen); });  // 3 x nr, row-major copy below
  Fc.block<3, 3>(0, 3 * 5).setZero();                                  // zero: SVD fallback
  Fc.block<3, 3>(0, 3 * 9) << 1, 0, 0, 0, 0, 0, 0, 0, 0;               // rank 1: SVD fallback
  Fc(0, 3 * 20) = std::numeric_limits<double>::quiet_NaN();            // non-finite lane stays in its lane
  std::vector<double> F(3 * nr), R(3 * nr), R2(3 * nr);
  for (int i = 0; i < 3; ++i)
    for (Index k = 0; k < nr; ++k) F[i * nr + k] = Fc(i, k);
  detail::closest_rotations_3x3_strided(F.data(), count, 3, nr, R.data());
  for (Index c0 = 0; c0 < count; c0 += 5)  // split into batches of 5
    detail::closest_rotations_3x3_strided(F.data() + 3 * c0, std::min<Index>(5, count - c0), 3, nr, R2.data() + 3 * c0);
  for (Index c = 0; c < count; ++c) {
    if (c == 20) continue;
    double f[9], r[9];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) f[3 * i + j] = F[i * nr + 3 * c + j];
    detail::closest_rotation<3>(f, r);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        EXPECT_NEAR(R[i * nr + 3 * c + j], r[3 * i + j], 1e-13) << "cluster " << c;
        EXPECT_EQ(R[i * nr + 3 * c + j], R2[i * nr + 3 * c + j]) << "cluster " << c;
      }
  }
}

TEST(PolarSvd, LaneKernelMatchesScalarIncludingFallbacksAndPadding) {
  // The fast solver's tile layout: entry (i, j) of matrix l at (3i + j)*8 + l. Fallback lanes
  // (zero, rank 1) and a short batch (padding lanes become the identity) included.
  std::mt19937 gen(5);
  std::normal_distribution<double> N;
  for (int count : {8, 5}) {
    std::vector<double> F(72), R(72, -7.0);
    for (double& v : F) v = N(gen);
    for (int k = 0; k < 9; ++k) F[k * 8 + 2] = 0.0;                                       // zero
    for (int k = 0; k < 9; ++k) F[k * 8 + 3] = (k == 0) ? 1.0 : 0.0;                      // rank 1
    for (int k = 0; k < 9; ++k) F[k * 8 + 4] = (k % 4 == 0 ? 2.0 : 0.0) + 0.01 * N(gen);  // near 2 I
    detail::closest_rotations_3x3_lanes(F.data(), count, R.data());
    for (int l = 0; l < 8; ++l) {
      double f[9], r[9];
      for (int k = 0; k < 9; ++k) f[k] = F[k * 8 + l];
      if (l < count) {
        detail::closest_rotation<3>(f, r);
      } else {
        for (int k = 0; k < 9; ++k) r[k] = (k % 4 == 0) ? 1.0 : 0.0;
      }
      for (int k = 0; k < 9; ++k) EXPECT_NEAR(R[k * 8 + l], r[k], 1e-13) << "lane " << l << " of " << count;
    }
  }
}

TEST(PolarSvd, TwoBatchLaneKernelEqualsTwoSingleCallsBitwise) {
  // Two batches whose Newton iterations stop at different counts (near-rotations against
  // general matrices), with fallback lanes and short batches: the interleaved kernel must give
  // exactly what two separate calls give.
  std::mt19937 gen(11);
  std::normal_distribution<double> N;
  for (const auto& [count0, count1] : {std::pair{8, 8}, std::pair{8, 3}, std::pair{6, 8}}) {
    std::vector<double> F0(72), F1(72);
    for (double& v : F0) v = N(gen);
    for (int k = 0; k < 72; ++k) F1[k] = ((k / 8) % 4 == 0 ? 1.0 : 0.0) + 1e-3 * N(gen);  // near I
    for (int k = 0; k < 9; ++k) F0[k * 8 + 1] = 0.0;                                      // zero
    for (int k = 0; k < 9; ++k) F1[k * 8 + 2] = (k == 0) ? 1.0 : 0.0;                     // rank 1
    std::vector<double> R0(72, -7.0), R1(72, -7.0), S0(72, -7.0), S1(72, -7.0);
    detail::closest_rotations_3x3_lanes2(F0.data(), count0, F1.data(), count1, R0.data(), R1.data());
    detail::closest_rotations_3x3_lanes(F0.data(), count0, S0.data());
    detail::closest_rotations_3x3_lanes(F1.data(), count1, S1.data());
    for (int k = 0; k < 72; ++k) {
      EXPECT_EQ(R0[k], S0[k]) << "batch 0, entry " << k;
      EXPECT_EQ(R1[k], S1[k]) << "batch 1, entry " << k;
    }
  }
}

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

}  // namespace test_polar_svd
}  // namespace fastcd
