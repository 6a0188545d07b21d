// The finite-difference helper itself: a correct derivative passes, a broken one fails (so every
// material and energy test built on it can fail).
#include "materials/finite_difference.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_finite_difference {

using test::fd::Derivative;

/// ARAP with a wrong stress (the rotation forgotten: P = mu F, the stress of mu/2 ||F||^2).
struct ArapWithoutRotation : Arap {
  template <int dim>
  static MatD<dim> stress(const MatD<dim>& F, const Lame& q) {
    return q.mu * F;
  }
};

/// ARAP with a stress 0.1% off.
struct ArapSlightlyWrongStress : Arap {
  template <int dim>
  static MatD<dim> stress(const MatD<dim>& F, const Lame& q) {
    return 1.001 * Arap::stress<dim>(F, q);
  }
};

/// ARAP whose stress derivative forgets the rotation's derivative (mu I).
struct ArapWithoutRotationDerivative : Arap {
  template <int dim>
  static StressDerivative<dim> stress_derivative(const MatD<dim>&, const Lame& q) {
    return q.mu * StressDerivative<dim>::Identity();
  }
};

template <int dim>
void broken_derivatives_fail() {
  std::mt19937 rng(23);
  const Lame q{2.0, 0.0};
  for (const MatD<dim>& F : test::fd::deformation_gradients<dim>(rng, test::fd::Sample::Stretched, 10)) {
    const auto good = test::fd::check_material<Arap, dim>(F, q);
    EXPECT_LT(good.gradient, 1e-6);
    EXPECT_LT(good.hessian, 1e-6);
    EXPECT_GT((test::fd::check_material<ArapWithoutRotation, dim>(F, q)).gradient, 1e-2);
    EXPECT_GT((test::fd::check_material<ArapSlightlyWrongStress, dim>(F, q)).gradient, 1e-4);
    EXPECT_GT((test::fd::check_material<ArapWithoutRotationDerivative, dim>(F, q)).hessian, 1e-2);
  }
}

TEST(FiniteDifference, BrokenMaterialDerivativesFail2D) { broken_derivatives_fail<2>(); }
TEST(FiniteDifference, BrokenMaterialDerivativesFail3D) { broken_derivatives_fail<3>(); }

// Any function of a vector: f(x) = sum_k sin(x_k) x_{k+1}^2.
TEST(FiniteDifference, GenericEnergyOfAVector) {
  const VectorXd x = VectorXd::LinSpaced(6, -1.0, 2.0);
  const auto f = [](const VectorXd& y) {
    double s = 0;
    for (Index k = 0; k + 1 < y.size(); ++k) s += std::sin(y(k)) * y(k + 1) * y(k + 1);
    return s;
  };
  const auto g = [](const VectorXd& y) {
    VectorXd r = VectorXd::Zero(y.size());
    for (Index k = 0; k + 1 < y.size(); ++k) {
      r(k) += std::cos(y(k)) * y(k + 1) * y(k + 1);
      r(k + 1) += 2 * std::sin(y(k)) * y(k + 1);
    }
    return r;
  };
  const auto H = [](const VectorXd& y) {
    MatrixXd r = MatrixXd::Zero(y.size(), y.size());
    for (Index k = 0; k + 1 < y.size(); ++k) {
      r(k, k) += -std::sin(y(k)) * y(k + 1) * y(k + 1);
      r(k, k + 1) += 2 * std::cos(y(k)) * y(k + 1);
      r(k + 1, k) += 2 * std::cos(y(k)) * y(k + 1);
      r(k + 1, k + 1) += 2 * std::sin(y(k));
    }
    return r;
  };
  const auto e = test::fd::check_derivatives(f, g, H, x);
  EXPECT_LT(e.gradient, 1e-8);
  EXPECT_LT(e.hessian, 1e-8);
  const auto broken = test::fd::check_derivatives(
      f, g, [&](const VectorXd& y) { return MatrixXd(H(y).diagonal().asDiagonal()); }, x);
  EXPECT_LT(broken.gradient, 1e-8);
  EXPECT_GT(broken.hessian, 1e-2);
}

TEST(FiniteDifference, SamplesHaveTheAdvertisedDeterminants) {
  std::mt19937 rng(1);
  for (const auto& F : test::fd::deformation_gradients<3>(rng, test::fd::Sample::NearlyFlat, 20)) {
    EXPECT_GT(F.determinant(), 0.0);
    EXPECT_LT(F.determinant(), 1e-2 * 1.5 * 1.5);
  }
  for (const auto& F : test::fd::deformation_gradients<2>(rng, test::fd::Sample::NearlyInverted, 20)) {
    EXPECT_LT(F.determinant(), 0.0);
    EXPECT_GT(F.determinant(), -1e-2 * 1.5);
  }
  for (const auto& F : test::fd::deformation_gradients<3>(rng, test::fd::Sample::Stretched, 20))
    EXPECT_GT(Eigen::JacobiSVD<Eigen::Matrix3d>(F).singularValues().minCoeff(), 1.0);
}

}  // namespace test_finite_difference
}  // namespace fastcd
