// The ARAP material: psi <-> P <-> dP/dF by finite differences (exact derivative away from the
// polar decomposition's singularities, projected one where ARAP is convex), the projection PSD
// everywhere, and the energy the solvers minimise.
#include "materials/finite_difference.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_arap {

using test::fd::Derivative;
using test::fd::Sample;

constexpr double kTol = 1e-6;  // central differences with h = 1e-6: errors ~1e-9 on these F

template <int dim>
void exact_derivatives_match_finite_differences() {
  std::mt19937 rng(7 + dim);
  const Lame q{3.5, 123.0};  // lambda is not used by ARAP
  int checked = 0;
  for (const Sample kind :
       {Sample::Random, Sample::Stretched, Sample::NearlyFlat, Sample::NearlyInverted, Sample::Inverted}) {
    for (const MatD<dim>& F : test::fd::deformation_gradients<dim>(rng, kind, 40)) {
      if (test::fd::smallest_pair_sum<dim>(F) < 0.05) continue;  // at the singularity dR/dF is unbounded
      const auto e = test::fd::check_material<Arap, dim>(F, q, Derivative::Exact);
      EXPECT_LT(e.gradient, kTol) << "dim " << dim << " kind " << static_cast<int>(kind) << " F\n" << F;
      EXPECT_LT(e.hessian, kTol) << "dim " << dim << " kind " << static_cast<int>(kind) << " F\n" << F;
      ++checked;
    }
  }
  EXPECT_GT(checked, 150);
}

TEST(Arap, ExactDerivativesMatchFiniteDifferences2D) { exact_derivatives_match_finite_differences<2>(); }
TEST(Arap, ExactDerivativesMatchFiniteDifferences3D) { exact_derivatives_match_finite_differences<3>(); }

template <int dim>
void projected_derivative_where_convex() {
  std::mt19937 rng(11 + dim);
  const Lame q{2.0, 0.0};
  for (const MatD<dim>& F : test::fd::deformation_gradients<dim>(rng, Sample::Stretched, 40)) {
    const auto e = test::fd::check_material<Arap, dim>(F, q, Derivative::Projected);
    EXPECT_LT(e.gradient, kTol);
    EXPECT_LT(e.hessian, kTol) << "F\n" << F;
    const StressDerivative<dim> H = Arap::stress_derivative<dim>(F, q), He = Arap::exact_stress_derivative<dim>(F, q);
    EXPECT_LT((H - He).norm(), 1e-12 * He.norm());
  }
}

TEST(Arap, ProjectedDerivativeIsExactWhereConvex2D) { projected_derivative_where_convex<2>(); }
TEST(Arap, ProjectedDerivativeIsExactWhereConvex3D) { projected_derivative_where_convex<3>(); }

template <int dim>
void projected_is_psd_everywhere() {
  std::mt19937 rng(17 + dim);
  const Lame q{5.0, 1.0};
  std::vector<MatD<dim>> Fs;
  for (const Sample kind :
       {Sample::Random, Sample::Stretched, Sample::NearlyFlat, Sample::NearlyInverted, Sample::Inverted})
    for (const MatD<dim>& F : test::fd::deformation_gradients<dim>(rng, kind, 40)) Fs.push_back(F);
  // Degenerate and singular F: zero, rank one, and a reflection (sigma = (1, .., 1, -1): the
  // last pair sums to 0, where the exact dP/dF is not finite).
  Fs.push_back(MatD<dim>::Zero());
  Fs.push_back(Eigen::Matrix<double, dim, 1>::LinSpaced(1.0, 2.0) * Eigen::Matrix<double, 1, dim>::Ones());
  MatD<dim> reflection = MatD<dim>::Identity();
  reflection(dim - 1, dim - 1) = -1.0;
  Fs.push_back(reflection);
  int indefinite = 0;
  for (const MatD<dim>& F : Fs) {
    const StressDerivative<dim> H = Arap::stress_derivative<dim>(F, q);
    ASSERT_TRUE(H.allFinite()) << "F\n" << F;
    EXPECT_LT((H - H.transpose()).norm(), 1e-12 * q.mu);
    EXPECT_GT(test::fd::min_eigenvalue(H), -1e-10 * q.mu) << "F\n" << F;
    const StressDerivative<dim> He = Arap::exact_stress_derivative<dim>(F, q);
    if (He.allFinite() && test::fd::min_eigenvalue(He) < -1e-3 * q.mu) ++indefinite;
  }
  EXPECT_GT(indefinite, 20);  // the projection is not idle: compressed F make the exact one indefinite
  // Compression by 1/2: the exact twist eigenvalue is mu (1 - 2 / 1) = -mu; projected, 0.
  const MatD<dim> half = 0.5 * MatD<dim>::Identity();
  EXPECT_NEAR(test::fd::min_eigenvalue(Arap::exact_stress_derivative<dim>(half, q)), -q.mu, 1e-12 * q.mu);
  EXPECT_NEAR(test::fd::min_eigenvalue(Arap::stress_derivative<dim>(half, q)), 0.0, 1e-12 * q.mu);
}

TEST(Arap, ProjectedDerivativeIsPsdEverywhere2D) { projected_is_psd_everywhere<2>(); }
TEST(Arap, ProjectedDerivativeIsPsdEverywhere3D) { projected_is_psd_everywhere<3>(); }

TEST(Arap, RotationsCostNothing) {
  std::mt19937 rng(3);
  const Lame q{4.0, 0.0};
  const Eigen::Matrix3d R = test::fd::random_rotation<3>(rng);
  EXPECT_NEAR(Arap::energy_density<3>(R, q), 0.0, 1e-14);
  EXPECT_LT(Arap::stress<3>(R, q).norm(), 1e-13);
  const Eigen::Matrix2d R2 = Eigen::Rotation2Dd(0.7).toRotationMatrix();
  EXPECT_NEAR(Arap::energy_density<2>(R2, q), 0.0, 1e-14);
  // Uniform stretch by s: ||F - R||^2 = dim (s - 1)^2.
  EXPECT_NEAR(Arap::energy_density<3>(1.5 * R, q), 0.5 * 4.0 * 3 * 0.25, 1e-13);
}

// On a mesh, with per-element (painted) mu: the material's energy of F = G x is the energy the
// solvers minimise, sum_e mu_e vol_e / 2 ||F_e - R_e||^2 with the solvers' closest rotations,
// and its gradient and Hessian with respect to positions (G^T stresses, G^T H G) match finite
// differences (a stretched state, where the projected Hessian is exact).
TEST(Arap, MeshEnergyGradientAndHessianWithPaintedStiffness) {
  for (int d : {2, 3}) {
    const Mesh m = test::mesh_for(d);
    const SparseMatrix G = deformation_jacobian(m.X, m.T);
    const VectorXd vol = volume(m.X, m.T).cwiseAbs();
    MaterialParams params = material_params(m.T.rows(), 1e5, 0.3);
    params.mu = VectorXd::LinSpaced(m.T.rows(), 1.0, 3.0);  // painted
    std::mt19937 rng(5);
    const VectorXd x = test::flat(1.4 * m.X) + 0.01 * VectorXd::Random(m.X.size());
    const VectorXd F = G * x;
    VectorXd R;
    polar_rotations(F, d, R);
    VectorXd w(F.size());
    for (Index e = 0; e < m.T.rows(); ++e) w.segment(e * d * d, d * d).setConstant(params.mu(e) * vol(e));
    const double E_solver = 0.5 * (F - R).dot(w.cwiseProduct(F - R));
    EXPECT_NEAR(material_energy<Arap>(F, vol, params, d), E_solver, 1e-12 * E_solver) << "dim " << d;
    const auto energy = [&](const VectorXd& y) { return material_energy<Arap>(G * y, vol, params, d); };
    const auto grad = [&](const VectorXd& y) -> VectorXd {
      return G.transpose() * material_stresses<Arap>(G * y, vol, params, d);
    };
    const auto hess = [&](const VectorXd& y) -> MatrixXd {
      return MatrixXd(SparseMatrix(G.transpose() * material_stress_derivatives<Arap>(G * y, vol, params, d) * G));
    };
    const auto e = test::fd::check_derivatives(energy, grad, hess, x, 1e-8);
    EXPECT_LT(e.gradient, kTol) << "dim " << d;
    EXPECT_LT(e.hessian, kTol) << "dim " << d;
    // lambda is not used by ARAP.
    MaterialParams other = params;
    other.lambda.setConstant(7.0);
    EXPECT_EQ(material_energy<Arap>(F, vol, other, d), material_energy<Arap>(F, vol, params, d));
  }
}

TEST(Arap, MeshFunctionsRejectBadInput) {
  const Mesh m = test::mesh2d();
  const VectorXd vol = volume(m.X, m.T).cwiseAbs();
  const VectorXd F = VectorXd::Zero(m.T.rows() * 4);
  MaterialParams params = material_params(m.T.rows(), 1e5, 0.0);
  test::expect_throw_with<std::invalid_argument>([&] { material_energy<Arap>(F.head(5), vol, params, 2); },
                                                 "F has 5 entries");
  test::expect_throw_with<std::invalid_argument>([&] { material_stresses<Arap>(F, vol, params, 4); },
                                                 "dimension must be 2 or 3");
  params.mu(3) = -1.0;
  test::expect_throw_with<std::invalid_argument>([&] { material_stress_derivatives<Arap>(F, vol, params, 2); },
                                                 "element 3 has mu -1");
}

}  // namespace test_arap
}  // namespace fastcd
