#pragma once
// Arap: the as-rigid-as-possible material, psi(F) = mu/2 ||F - R(F)||_F^2 with R(F) the rotation
// closest to F (polar_svd: det R = +1, also for inverted F). The energy of both solvers
// (Zhang et al. 2020, Benchekroun et al. 2023): FullCD and FastCD minimise sum_e vol_e psi(F_e)
// by local/global steps (R fixed in the global step: the stiffness_matrix with w_e = mu_e vol_e).
// lambda is not used.
//
// Derivatives, with the rotation-variant SVD F = U diag(sigma) V^T (signed_svd):
//   P(F) = mu (F - R)                           (d tr(R^T F) / dF = R: R maximises tr(Q^T F))
//   dP/dF = mu (I - dR/dF),   dR/dF = sum_{a<b} 2 / (sigma_a + sigma_b) t_ab t_ab^T,
// t_ab the flattened twist U (e_a e_b^T - e_b e_a^T) V^T / sqrt(2) (one in 2D, three in 3D;
// Smith et al. 2019, "Analytic eigensystems for isotropic distortion energies"). So dP/dF has
// the eigenvalue mu on the dim(dim+1)/2 symmetric directions and mu (1 - 2 / (sigma_a + sigma_b))
// on twist t_ab: ARAP is not convex where two singular values sum below 2 (compression), and
// dR/dF is singular where they sum to 0 (sigma_a + sigma_b >= 0 always holds with signed
// singular values). The projected dP/dF (stress_derivative) clamps the twist eigenvalues at 0:
// mu (1 - 2 / s) when s = sigma_a + sigma_b > 2, else 0 (which is also its limit at s -> 0+). It
// equals the exact dP/dF wherever every such sum is >= 2, and is positive semi-definite for
// mu >= 0 everywhere, including inverted and degenerate F.
#include <string_view>

#include "fastcd/materials/material.hpp"

namespace fastcd {

struct Arap {
  static constexpr std::string_view name = "arap";

  /// psi(F) = mu/2 ||F - R||^2.
  template <int dim>
  static double energy_density(const MatD<dim>& F, const Lame& q);

  /// P(F) = mu (F - R).
  template <int dim>
  static MatD<dim> stress(const MatD<dim>& F, const Lame& q);

  /// dP/dF projected to positive semi-definite (twist eigenvalues clamped at 0; file comment).
  template <int dim>
  static StressDerivative<dim> stress_derivative(const MatD<dim>& F, const Lame& q);

  /// dP/dF exactly (indefinite where a pair of singular values sums below 2; not finite where a
  /// pair sums to 0, the polar decomposition's singularity).
  template <int dim>
  static StressDerivative<dim> exact_stress_derivative(const MatD<dim>& F, const Lame& q);
};

static_assert(Material<Arap>);

}  // namespace fastcd
