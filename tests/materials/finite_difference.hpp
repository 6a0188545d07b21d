#pragma once
// Finite-difference checks of energy <-> gradient <-> Hessian, for every material and every later
// energy (contact, ...): a function of any vector x (F flattened, or mesh positions) is checked
// by central differences, and the relative errors are returned so a test can both assert that
// a correct derivative passes and that a broken one fails.
//
//   fd::Errors e = fd::check_derivatives(energy, gradient, hessian, x);
//   EXPECT_LT(e.gradient, 1e-6);  // gradient vs central differences of the energy
//   EXPECT_LT(e.hessian, 1e-6);   // Hessian vs central differences of the gradient
//
// Materials: fd::check_material<Arap, 3>(F, q) checks psi <-> P <-> dP/dF on one F (row-major
// flattening, materials/material.hpp), with the derivative of your choice (exact or projected).
// fd::deformation_gradients<dim>(rng, kind, count) draws the F to check: random, stretched (all
// singular values above 1), near-inverted with det F small and positive, or small and negative.
#include <Eigen/Eigenvalues>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "fastcd/materials/material.hpp"

namespace fastcd::test::fd {

/// Relative errors of a derivative check (0 when both sides vanish).
struct Errors {
  double gradient = 0.0;  ///< ||g - g_fd|| / max(||g_fd||, scale)
  double hessian = 0.0;   ///< ||H - H_fd|| / max(||H_fd||, scale)
};

/// Step for coordinate k of x: h * max(1, |x_k|).
inline double step(double h, double xk) { return h * std::max(1.0, std::abs(xk)); }

/// Central differences of a scalar function: g_k = (f(x + s e_k) - f(x - s e_k)) / (2 s).
template <class Energy>
VectorXd gradient(Energy&& f, const VectorXd& x, double h = 1e-6) {
  VectorXd g(x.size()), y = x;
  for (Index k = 0; k < x.size(); ++k) {
    const double s = step(h, x(k));
    y(k) = x(k) + s;
    const double fp = f(y);
    y(k) = x(k) - s;
    const double fm = f(y);
    y(k) = x(k);
    g(k) = (fp - fm) / (2.0 * s);
  }
  return g;
}

/// Central differences of a vector function, column by column: J(:, k) = dg/dx_k.
template <class Gradient>
MatrixXd jacobian(Gradient&& g, const VectorXd& x, double h = 1e-6) {
  MatrixXd J(g(x).size(), x.size());
  VectorXd y = x;
  for (Index k = 0; k < x.size(); ++k) {
    const double s = step(h, x(k));
    y(k) = x(k) + s;
    const VectorXd gp = g(y);
    y(k) = x(k) - s;
    const VectorXd gm = g(y);
    y(k) = x(k);
    J.col(k) = (gp - gm) / (2.0 * s);
  }
  return J;
}

/// ||a - b|| / max(||b||, scale): scale keeps a vanishing reference (a gradient at a minimum)
/// from turning rounding into a large relative error.
inline double relative_error(const MatrixXd& a, const MatrixXd& b, double scale) {
  return (a - b).norm() / std::max(b.norm(), scale);
}

/// energy(x) -> double, gradient(x) -> VectorXd, hessian(x) -> MatrixXd (dense or sparse),
/// checked at x. `scale` is the magnitude below which errors count as absolute (e.g. the
/// stiffness times the size of x).
template <class Energy, class Gradient, class Hessian>
Errors check_derivatives(Energy&& energy, Gradient&& grad, Hessian&& hess, const VectorXd& x, double scale = 1e-8,
                         double h = 1e-6) {
  Errors e;
  const VectorXd g = grad(x);
  e.gradient = relative_error(g, gradient(energy, x, h), scale);
  const MatrixXd H = MatrixXd(hess(x));
  e.hessian = relative_error(H, jacobian(grad, x, h), scale);
  return e;
}

/// Row-major flattening (the layout of G x) and back.
template <int dim>
VectorXd flatten(const MatD<dim>& A) {
  VectorXd f(dim * dim);
  for (int i = 0; i < dim; ++i)
    for (int j = 0; j < dim; ++j) f(i * dim + j) = A(i, j);
  return f;
}
template <int dim>
MatD<dim> unflatten(const VectorXd& f) {
  return detail::unflatten_row_major<dim>(f.data());
}

/// Which derivative of a material check_material compares with differences of P.
enum class Derivative { Projected, Exact };

/// psi <-> P <-> dP/dF of material M at F (Derivative::Exact needs M::exact_stress_derivative).
template <class M, int dim>
Errors check_material(const MatD<dim>& F, const Lame& q, Derivative which = Derivative::Projected) {
  const auto energy = [&](const VectorXd& f) { return M::template energy_density<dim>(unflatten<dim>(f), q); };
  const auto grad = [&](const VectorXd& f) { return flatten<dim>(M::template stress<dim>(unflatten<dim>(f), q)); };
  const auto hess = [&](const VectorXd& f) -> MatrixXd {
    if constexpr (requires { M::template exact_stress_derivative<dim>(F, q); })
      if (which == Derivative::Exact) return M::template exact_stress_derivative<dim>(unflatten<dim>(f), q);
    return M::template stress_derivative<dim>(unflatten<dim>(f), q);
  };
  return check_derivatives(energy, grad, hess, flatten<dim>(F), 1e-8 * std::max(1.0, q.mu));
}

/// The smallest eigenvalue of the symmetric part of H.
template <class Matrix>
double min_eigenvalue(const Matrix& H) {
  const MatrixXd S = 0.5 * (MatrixXd(H) + MatrixXd(H).transpose());
  return Eigen::SelfAdjointEigenSolver<MatrixXd>(S).eigenvalues().minCoeff();
}

/// Kinds of F to check a material on.
enum class Sample {
  Random,          ///< entries uniform in [-1.5, 1.5] plus the identity (det of either sign)
  Stretched,       ///< U diag(sigma) V^T, every sigma in [1.05, 2]: no compression
  NearlyFlat,      ///< det F small and positive: the last singular value in [1e-3, 1e-2]
  NearlyInverted,  ///< det F small and negative: the last signed singular value in [-1e-2, -1e-3]
  Inverted,        ///< det F < 0: the last signed singular value in [-0.9, -0.1]
};

/// A random rotation (det +1).
template <int dim>
MatD<dim> random_rotation(std::mt19937& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  MatD<dim> A;
  for (int i = 0; i < dim; ++i)
    for (int j = 0; j < dim; ++j) A(i, j) = n(rng);
  Eigen::HouseholderQR<MatD<dim>> qr(A);
  MatD<dim> Q = qr.householderQ();
  if (Q.determinant() < 0) Q.col(0) *= -1.0;
  return Q;
}

/// `count` deformation gradients of kind `kind`.
template <int dim>
std::vector<MatD<dim>> deformation_gradients(std::mt19937& rng, Sample kind, int count) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const auto in = [&](double lo, double hi) { return lo + (hi - lo) * u(rng); };
  std::vector<MatD<dim>> out;
  for (int c = 0; c < count; ++c) {
    if (kind == Sample::Random) {
      MatD<dim> F = MatD<dim>::Identity();
      for (int i = 0; i < dim; ++i)
        for (int j = 0; j < dim; ++j) F(i, j) += in(-1.5, 1.5);
      out.push_back(F);
      continue;
    }
    Eigen::Matrix<double, dim, 1> sigma;
    for (int i = 0; i < dim; ++i) sigma(i) = kind == Sample::Stretched ? in(1.05, 2.0) : in(0.5, 1.5);
    if (kind == Sample::NearlyFlat) sigma(dim - 1) = in(1e-3, 1e-2);
    if (kind == Sample::NearlyInverted) sigma(dim - 1) = -in(1e-3, 1e-2);
    if (kind == Sample::Inverted) sigma(dim - 1) = -in(0.1, 0.9);
    out.push_back(random_rotation<dim>(rng) * sigma.asDiagonal() * random_rotation<dim>(rng).transpose());
  }
  return out;
}

/// The smallest sum of two signed singular values of F (signed_svd): the distance from the
/// polar decomposition's singularity, where the closest rotation is not differentiable.
template <int dim>
double smallest_pair_sum(const MatD<dim>& F) {
  const auto s = signed_svd<dim>(F).sigma;
  double m = INFINITY;
  for (int a = 0; a < dim; ++a)
    for (int b = a + 1; b < dim; ++b) m = std::min(m, s(a) + s(b));
  return m;
}

}  // namespace fastcd::test::fd
