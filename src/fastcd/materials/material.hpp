#pragma once
// Materials: per-element hyperelastic energy densities psi(F), their first Piola-Kirchhoff stress
// P(F) = d psi / dF and a positive semi-definite projection of dP/dF, over per-element Lame
// parameters. ARAP (materials/arap.hpp) is the first; neo-Hookean, stable neo-Hookean, StVK,
// corotational and linear elasticity plug in the same way.
//
// Conventions (the layout of G x, deformation_jacobian):
//   * F, P: dim x dim (fixed-size Eigen); stacked over elements they are flattened row-major,
//     element-major: entry e*dim^2 + i*dim + j is F_e(i, j).
//   * dP/dF: dim^2 x dim^2, H(i*dim + j, k*dim + l) = d P(i, j) / d F(k, l) = d^2 psi / dF_ij dF_kl
//     (row-major flattening on both sides, so it is symmetric).
//   * "projected": H_+ = Q max(Lambda, 0) Q^T for H = Q Lambda Q^T, the positive semi-definite
//     matrix closest to H in the Frobenius norm (negative eigenvalues clamped to zero). A Newton
//     or local/global step built from H_+ descends even where psi is not convex. Materials with
//     an analytic eigensystem (ARAP) clamp their eigenvalues directly; others may call
//     project_to_psd.
//   * Parameters are per element: mu_e and lambda_e (MaterialParams), so painted stiffness is
//     data, not a new code path. A material may ignore lambda (ARAP does).
//
// Adding a material: a struct satisfying the `Material` concept (three static kernels, each a
// template <int dim> instantiated for 2 and 3, and a `name`) in materials/<name>.{hpp,cpp}, a
// MaterialKind value and its case in materials/material_kind.{hpp,cpp}, tests with
// tests/materials/finite_difference.hpp.
#include <concepts>
#include <string_view>
#include <vector>

#include "fastcd/common/check.hpp"
#include "fastcd/common/types.hpp"

namespace fastcd {

/// One element's material parameters (Lame: mu the shear modulus, lambda the first parameter).
struct Lame {
  double mu = 0.0;
  double lambda = 0.0;
};

/// Per-element material parameters, #T each (ympr_to_lame per element).
struct MaterialParams {
  VectorXd mu;      ///< #T shear modulus (the second Lame parameter)
  VectorXd lambda;  ///< #T first Lame parameter
  Index size() const { return mu.size(); }
  Lame operator[](Index e) const { return {mu(e), lambda(e)}; }
};

/// Uniform parameters for `num_elements` elements from Young's modulus and Poisson ratio
/// (ympr_to_lame). @throws std::invalid_argument for bad values (see ympr_to_lame).
MaterialParams material_params(Index num_elements, double ym, double pr);

/// Checks params against `num_elements` elements: sizes, finite, mu >= 0 (what every material
/// here needs). `where` names the caller in the message.
/// @throws std::invalid_argument naming the first bad entry.
void check_material_params(const MaterialParams& params, Index num_elements, const char* where);

template <int dim>
using MatD = Eigen::Matrix<double, dim, dim>;  ///< F, P
template <int dim>
using StressDerivative = Eigen::Matrix<double, dim * dim, dim * dim>;  ///< dP/dF, row-major flattening

/// A material: psi(F), P(F) = d psi / dF and the projected dP/dF of one element, 2D and 3D.
template <class M>
concept Material = requires(const MatD<2>& F2, const MatD<3>& F3, const Lame& q) {
  { M::name } -> std::convertible_to<std::string_view>;
  { M::template energy_density<2>(F2, q) } -> std::same_as<double>;
  { M::template energy_density<3>(F3, q) } -> std::same_as<double>;
  { M::template stress<2>(F2, q) } -> std::same_as<MatD<2>>;
  { M::template stress<3>(F3, q) } -> std::same_as<MatD<3>>;
  { M::template stress_derivative<2>(F2, q) } -> std::same_as<StressDerivative<2>>;
  { M::template stress_derivative<3>(F3, q) } -> std::same_as<StressDerivative<3>>;
};

/// H_+ = Q max(Lambda, 0) Q^T (see the file comment), by a symmetric eigen-decomposition of the
/// symmetric part of H.
/// Instantiated in material.cpp for n = 4 and 9 (dP/dF in 2D and 3D): a fixed-size symmetric
/// eigen-solver is compiled once, in the library, not in every file that projects.
template <int n>
Eigen::Matrix<double, n, n> project_to_psd(const Eigen::Matrix<double, n, n>& H);

/// Rotation-variant SVD F = U diag(sigma) V^T with U, V proper rotations (det +1): the singular
/// values are sorted by magnitude, sigma_0 >= ... >= |sigma_{dim-1}|, and only the last may be
/// negative (when det F < 0). Then the closest rotation to F is U V^T (Irving et al. 2004,
/// Smith et al. 2019).
template <int dim>
struct SignedSvd {
  MatD<dim> U, V;
  Eigen::Matrix<double, dim, 1> sigma;
};
template <int dim>
SignedSvd<dim> signed_svd(const MatD<dim>& F);

/// sum_e vol_e psi(F_e) over stacked row-major F (#T*dim^2, the layout of G x).
/// @throws std::invalid_argument for mismatched sizes or bad parameters.
template <Material M>
double material_energy(const Eigen::Ref<const VectorXd>& F, const Eigen::Ref<const VectorXd>& vol,
                       const MaterialParams& params, Index dim);

/// vol_e P(F_e), stacked row-major (#T*dim^2): the energy's gradient with respect to F, so the
/// gradient with respect to positions x (F = G x) is G^T times it.
template <Material M>
VectorXd material_stresses(const Eigen::Ref<const VectorXd>& F, const Eigen::Ref<const VectorXd>& vol,
                           const MaterialParams& params, Index dim);

/// blockdiag(vol_e dP/dF(F_e)), projected (#T*dim^2 square, one dim^2 block per element): the
/// energy's projected Hessian with respect to F; with respect to x it is G^T H G.
template <Material M>
SparseMatrix material_stress_derivatives(const Eigen::Ref<const VectorXd>& F, const Eigen::Ref<const VectorXd>& vol,
                                         const MaterialParams& params, Index dim);

// ----------------------------------------------------------------------------------------------
// Implementation of the templates.

namespace detail {
void check_stacked(const Eigen::Ref<const VectorXd>& F, const Eigen::Ref<const VectorXd>& vol,
                   const MaterialParams& params, Index dim, const char* where);

template <int dim>
MatD<dim> unflatten_row_major(const double* f) {
  MatD<dim> A;
  for (int i = 0; i < dim; ++i)
    for (int j = 0; j < dim; ++j) A(i, j) = f[i * dim + j];
  return A;
}
}  // namespace detail

template <Material M>
double material_energy(const Eigen::Ref<const VectorXd>& F, const Eigen::Ref<const VectorXd>& vol,
                       const MaterialParams& params, Index dim) {
  detail::check_stacked(F, vol, params, dim, "material_energy");
  double E = 0.0;
  const auto run = [&]<int d>() {
    for (Index e = 0; e < vol.size(); ++e)
      E += vol(e) * M::template energy_density<d>(detail::unflatten_row_major<d>(F.data() + e * d * d), params[e]);
  };
  dim == 2 ? run.template operator()<2>() : run.template operator()<3>();
  return E;
}

template <Material M>
VectorXd material_stresses(const Eigen::Ref<const VectorXd>& F, const Eigen::Ref<const VectorXd>& vol,
                           const MaterialParams& params, Index dim) {
  detail::check_stacked(F, vol, params, dim, "material_stresses");
  VectorXd out(F.size());
  const auto run = [&]<int d>() {
    for (Index e = 0; e < vol.size(); ++e) {
      const MatD<d> P = vol(e) * M::template stress<d>(detail::unflatten_row_major<d>(F.data() + e * d * d), params[e]);
      for (int i = 0; i < d; ++i)
        for (int j = 0; j < d; ++j) out(e * d * d + i * d + j) = P(i, j);
    }
  };
  dim == 2 ? run.template operator()<2>() : run.template operator()<3>();
  return out;
}

template <Material M>
SparseMatrix material_stress_derivatives(const Eigen::Ref<const VectorXd>& F, const Eigen::Ref<const VectorXd>& vol,
                                         const MaterialParams& params, Index dim) {
  detail::check_stacked(F, vol, params, dim, "material_stress_derivatives");
  std::vector<Triplet> trip;
  trip.reserve(static_cast<std::size_t>(vol.size() * dim * dim * dim * dim));
  const auto run = [&]<int d>() {
    for (Index e = 0; e < vol.size(); ++e) {
      const StressDerivative<d> H =
          vol(e) * M::template stress_derivative<d>(detail::unflatten_row_major<d>(F.data() + e * d * d), params[e]);
      for (int c = 0; c < d * d; ++c)
        for (int r = 0; r < d * d; ++r) trip.emplace_back(e * d * d + r, e * d * d + c, H(r, c));
    }
  };
  dim == 2 ? run.template operator()<2>() : run.template operator()<3>();
  SparseMatrix H(F.size(), F.size());
  H.setFromTriplets(trip.begin(), trip.end());
  return H;
}

}  // namespace fastcd
