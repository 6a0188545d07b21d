#pragma once
// harmonic_extension: skinning weights known on some vertices (a skin's surface), extended to
// the others (a tet mesh's interior) by the harmonic (cotangent Laplacian) solve.
#include "fastcd/common/types.hpp"

namespace fastcd {

struct HarmonicExtension {
  MatrixXd W;                ///< #V x #columns weights: the given rows unchanged, the rest harmonic
  double most_negative = 0;  ///< the most negative harmonic value before clamping (0 if none)
  Index clamped = 0;         ///< harmonic entries that were negative and set to 0
  double fit_error = 0;      ///< harmonic_fit: max |E W - W_points| after clamping (0 for the extension)
};

/// Solves K_II W_I = -K_IB W_B (K: dirichlet_laplacian) with one factorisation for every
/// column, then clamps negative values to 0 (the discrete maximum principle fails on obtuse
/// dihedral angles) and divides each solved row by its sum, so solved rows sum to 1. (When the
/// given rows sum to 1 the solve gives that already, up to the clamping: the harmonic
/// extension of 1 is 1.)
///
/// @param X, T     #V x dim positions and #T x (dim+1) simplices.
/// @param known    indices of the vertices whose weights are given (distinct).
/// @param W_known  #known x #columns their weights (finite, >= 0).
/// @throws std::invalid_argument for bad shapes or indices, repeated indices, negative or
///         non-finite weights; std::runtime_error when part of the mesh touches no given
///         vertex (the system is singular there).
HarmonicExtension harmonic_extension(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                                     const Eigen::Ref<const VectorXi>& known,
                                     const Eigen::Ref<const MatrixXd>& W_known);

/// Weights known at points embedded in the mesh (a render surface inside a voxel grid) rather
/// than at its vertices: min tr(W^T K W) + lambda |E W - W_points|^2 (K: dirichlet_laplacian,
/// lambda = fit * trace(K) / trace(E^T E)), one factorisation for every column, then negatives
/// clamped and rows renormalised to 1. Constant fields are kept exactly; others are smoothed
/// towards the mean between the points (the fit_error says how much), the price of a fit that
/// never overshoots far (Fox in a 24-cell grid: weights down to -0.46 before clamping).
/// @param E         #P x #V interpolation (rows of barycentric weights, e.g. embed_points).
/// @param W_points  #P x #columns weights at the points (finite, >= 0).
/// @param fit       data weight relative to smoothness (> 0; larger follows the points more
///                  closely and overshoots more).
/// @throws std::invalid_argument for bad shapes or values; std::runtime_error when the solve
///         fails or a vertex ends with no weight.
HarmonicExtension harmonic_fit(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                               const SparseMatrix& E, const Eigen::Ref<const MatrixXd>& W_points, double fit = 1);

}  // namespace fastcd
