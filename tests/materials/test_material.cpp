// The material interface: per-element parameters, the kinds by name, the PSD projection and the
// rotation-variant SVD.
#include "materials/finite_difference.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_material {

TEST(Material, UniformParametersFromYoungsModulusAndPoissonRatio) {
  const MaterialParams p = material_params(5, 1e5, 0.25);
  ASSERT_EQ(p.size(), 5);
  const auto [mu, lambda] = ympr_to_lame(1e5, 0.25);
  EXPECT_TRUE((p.mu.array() == mu).all());
  EXPECT_TRUE((p.lambda.array() == lambda).all());
  EXPECT_EQ(p[3].mu, mu);
  EXPECT_EQ(p[3].lambda, lambda);
  EXPECT_NO_THROW(check_material_params(p, 5, "test"));
  test::expect_throw_with<std::invalid_argument>([&] { check_material_params(p, 6, "test"); }, "each of the 6");
  MaterialParams bad = p;
  bad.lambda(2) = std::nan("");
  test::expect_throw_with<std::invalid_argument>([&] { check_material_params(bad, 5, "test"); },
                                                 "element 2 has lambda");
  test::expect_throw_with<std::invalid_argument>([&] { material_params(5, -1.0, 0.0); }, "Young's modulus");
}

TEST(Material, KindsByName) {
  EXPECT_EQ(material_name(MaterialKind::Arap), "arap");
  EXPECT_EQ(material_kind("arap"), MaterialKind::Arap);
  test::expect_throw_with<std::invalid_argument>([&] { material_kind("neo-hookean"); },
                                                 "unknown material \"neo-hookean\"; fastcd has: arap");
  // The run-time choice reaches the material's kernels.
  const double psi = dispatch_material(MaterialKind::Arap, []<class M>() {
    return M::template energy_density<2>(2.0 * Eigen::Matrix2d::Identity(), Lame{3.0, 0.0});
  });
  EXPECT_DOUBLE_EQ(psi, 0.5 * 3.0 * 2.0);
}

TEST(Material, ProjectionToPsdClampsNegativeEigenvalues) {
  std::mt19937 rng(2);
  std::normal_distribution<double> n;
  for (int trial = 0; trial < 20; ++trial) {
    Eigen::Matrix<double, 9, 9> A;
    for (Index k = 0; k < A.size(); ++k) A(k) = n(rng);
    const Eigen::Matrix<double, 9, 9> H = A + A.transpose();
    const Eigen::Matrix<double, 9, 9> P = project_to_psd<9>(H);
    EXPECT_GT(test::fd::min_eigenvalue(P), -1e-12 * H.norm());
    // The distance to H is the size of H's negative eigenvalues (the closest PSD matrix).
    const VectorXd ev = Eigen::SelfAdjointEigenSolver<MatrixXd>(H).eigenvalues();
    EXPECT_NEAR((P - H).norm(), ev.cwiseMin(0.0).norm(), 1e-12 * H.norm());
    const Eigen::Matrix<double, 9, 9> Psd = A * A.transpose();
    EXPECT_LT((project_to_psd<9>(Psd) - Psd).norm(), 1e-12 * Psd.norm());
  }
}

template <int dim>
void signed_svd_properties() {
  std::mt19937 rng(9);
  for (const auto kind : {test::fd::Sample::Random, test::fd::Sample::Inverted, test::fd::Sample::NearlyInverted})
    for (const MatD<dim>& F : test::fd::deformation_gradients<dim>(rng, kind, 20)) {
      const SignedSvd<dim> s = signed_svd<dim>(F);
      EXPECT_NEAR(s.U.determinant(), 1.0, 1e-12);
      EXPECT_NEAR(s.V.determinant(), 1.0, 1e-12);
      EXPECT_LT((s.U * s.sigma.asDiagonal() * s.V.transpose() - F).norm(), 1e-12 * F.norm());
      for (int i = 0; i + 1 < dim; ++i) EXPECT_GE(s.sigma(i), std::abs(s.sigma(i + 1)));
      EXPECT_EQ(s.sigma(dim - 1) < 0, F.determinant() < 0);
      MatD<dim> R;
      polar_svd<dim>(F, R);
      EXPECT_LT((s.U * s.V.transpose() - R).norm(), 1e-10);  // the closest rotation, as the solvers'
    }
}

TEST(Material, SignedSvd2D) { signed_svd_properties<2>(); }
TEST(Material, SignedSvd3D) { signed_svd_properties<3>(); }

}  // namespace test_material
}  // namespace fastcd
