#include "fastcd/materials/arap.hpp"

#include <cmath>

#include "fastcd/solvers/polar_svd.hpp"

namespace fastcd {

namespace {

template <int dim>
MatD<dim> closest_rotation_of(const MatD<dim>& F) {
  MatD<dim> R;
  polar_svd<dim>(F, R);
  return R;
}

/// mu I + sum_ab (h_ab - mu) t_ab t_ab^T, with h_ab = twist(sigma_a + sigma_b) the eigenvalue of
/// dP/dF on twist t_ab (row-major flattening).
template <int dim, class Twist>
StressDerivative<dim> arap_hessian(const MatD<dim>& F, double mu, Twist twist) {
  const SignedSvd<dim> svd = signed_svd<dim>(F);
  StressDerivative<dim> H = mu * StressDerivative<dim>::Identity();
  for (int a = 0; a < dim; ++a)
    for (int b = a + 1; b < dim; ++b) {
      MatD<dim> K = MatD<dim>::Zero();
      K(a, b) = -1.0 / std::sqrt(2.0);
      K(b, a) = 1.0 / std::sqrt(2.0);
      const MatD<dim> T = svd.U * K * svd.V.transpose();
      Eigen::Matrix<double, dim * dim, 1> t;
      for (int i = 0; i < dim; ++i)
        for (int j = 0; j < dim; ++j) t(i * dim + j) = T(i, j);
      H += (twist(svd.sigma(a) + svd.sigma(b)) - mu) * (t * t.transpose());
    }
  return H;
}

}  // namespace

template <int dim>
double Arap::energy_density(const MatD<dim>& F, const Lame& q) {
  return 0.5 * q.mu * (F - closest_rotation_of<dim>(F)).squaredNorm();
}

template <int dim>
MatD<dim> Arap::stress(const MatD<dim>& F, const Lame& q) {
  return q.mu * (F - closest_rotation_of<dim>(F));
}

template <int dim>
StressDerivative<dim> Arap::stress_derivative(const MatD<dim>& F, const Lame& q) {
  const double mu = q.mu;
  return arap_hessian<dim>(F, mu, [mu](double s) { return s > 2.0 ? mu * (1.0 - 2.0 / s) : 0.0; });
}

template <int dim>
StressDerivative<dim> Arap::exact_stress_derivative(const MatD<dim>& F, const Lame& q) {
  const double mu = q.mu;
  return arap_hessian<dim>(F, mu, [mu](double s) { return mu * (1.0 - 2.0 / s); });
}

template double Arap::energy_density<2>(const MatD<2>&, const Lame&);
template double Arap::energy_density<3>(const MatD<3>&, const Lame&);
template MatD<2> Arap::stress<2>(const MatD<2>&, const Lame&);
template MatD<3> Arap::stress<3>(const MatD<3>&, const Lame&);
template StressDerivative<2> Arap::stress_derivative<2>(const MatD<2>&, const Lame&);
template StressDerivative<3> Arap::stress_derivative<3>(const MatD<3>&, const Lame&);
template StressDerivative<2> Arap::exact_stress_derivative<2>(const MatD<2>&, const Lame&);
template StressDerivative<3> Arap::exact_stress_derivative<3>(const MatD<3>&, const Lame&);

}  // namespace fastcd
