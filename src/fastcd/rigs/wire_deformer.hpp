#pragma once
// wire_deformer: the daisy's wire rig of the Complementary Dynamics MATLAB release (2020):
// point handles -> a Catmull-Rom curve -> every mesh vertex carried rigidly by the moving frame
// of its closest curve sample (catmull_rom_handle.m, cluster_pnts_to_closest.m, wire_deform.m).
//
// The curve (as in catmull_rom_handle.m). #H >= 2 handles P_0..P_{#H-1} (2D) at uniform knots
// are joined by #H-1 cubic Hermite segments; handle k's tangent is the central difference
// M_k = (P_{k+1} - P_{k-1}) / 2 inside and the one-sided difference at the ends,
// M_0 = P_1 - P_0, M_{#H-1} = P_{#H-1} - P_{#H-2} (no ghost points are used; this equals
// reflected ghost points P_{-1} = 2 P_0 - P_1). Segment k at local t in [0, 1]:
//     s(t) = h00(t) P_k + h10(t) M_k + h01(t) P_{k+1} + h11(t) M_{k+1},
//     h00 = 2t^3 - 3t^2 + 1, h10 = t^3 - 2t^2 + t, h01 = -2t^3 + 3t^2, h11 = t^3 - t^2,
// and u(t) = ds/dt. Samples: segment k contributes t = 0, 1/n, ..., (n-1)/n
// (n = samples_per_segment), then one last sample at the last handle (t = 1 of the last
// segment): #S = (#H - 1) n + 1 samples (the release's linspace, with exact t = j/n). Each sample
// has the frame t = u / |u| (unit tangent) and n = R t, R = [0 -1; 1 0] (tangent turned +90 deg).
//
// The deformer. At rest, vertex i is bound to its closest rest sample s(i) (the first one on
// ties) with local coordinates a_i = (X_i - s0) . t0, b_i = (X_i - s0) . n0. Under handle
// positions p the vertex follows that sample's frame:
//     x_i(p) = s(p) + a_i t(p) + b_i n(p)          (the release's [t n] [t0 n0]^-1 (X_i - s0) + s).
// The map is equivariant under rigid motions of all handles (rotations and translations), not
// under scaling or reflection.
//
// Jacobian. With s = sum_k c_k P_k and u = sum_k d_k P_k (c, d: the Hermite weights of the
// vertex's sample, at most 4 handles), dt/du = n n^T / |u| and dn/du = -t n^T / |u|, so
//     dx_i / dP_k = c_k I + (d_k / |u|) (a_i n - b_i t) n^T          (a 2 x 2 block).
//
// Layout: handle positions p and vertex positions x are vertex-interleaved
// [x0, y0, x1, y1, ...] (as daisy.m's finite-difference Jacobian).
#include <Eigen/SparseCore>

#include "fastcd/common/types.hpp"

namespace fastcd {

/// Samples of the release's Catmull-Rom curve: positions, unit tangents and unit normals.
struct CatmullRomSamples {
  MatrixXd S;  ///< #S x 2 sample positions, #S = (#H - 1) * samples_per_segment + 1
  MatrixXd T;  ///< #S x 2 unit tangents
  MatrixXd N;  ///< #S x 2 unit normals, N = R T (tangent turned by +90 degrees)
};

/// The release's catmull_rom_handle(handles(:,1), handles(:,2), samples_per_segment).
/// @param handles              #H x 2 handle positions, #H >= 2, finite.
/// @param samples_per_segment  samples per segment n >= 1.
/// @throws std::invalid_argument for bad shapes/values or a vanishing tangent (coincident
///         handles), naming the sample.
CatmullRomSamples catmull_rom_samples(const Eigen::Ref<const MatrixXd>& handles, int samples_per_segment = 30);

/// Precomputed wire rig (see the file comment for the formulas).
struct WireDeformer {
  Index samples_per_segment = 30;  ///< n
  MatrixXd rest_handles;           ///< #H x 2 rest handle positions
  /// #S x #H Hermite weights: sample positions = basis * handles (at most 4 entries per row).
  Eigen::SparseMatrix<double, Eigen::RowMajor> basis;
  /// #S x #H weights of the curve derivative d s / d t at the samples (same pattern).
  Eigen::SparseMatrix<double, Eigen::RowMajor> basis_derivative;
  CatmullRomSamples rest;  ///< rest samples and frames
  VectorXi closest;        ///< #V closest rest sample of each vertex
  MatrixXd local;          ///< #V x 2 local coordinates (a along the tangent, b along the normal)
};

/// Binds mesh vertices to the wire through the rest handles (daisy.m's catmull_rom_handle +
/// cluster_pnts_to_closest).
/// @param X                    #V x 2 rest vertex positions.
/// @param handles              #H x 2 rest handle positions, #H >= 2.
/// @param samples_per_segment  curve samples per segment (the release uses 30), >= 1.
/// @throws std::invalid_argument for wrong shapes, fewer than 2 handles, NaN/Inf,
///         samples_per_segment < 1, or a rest curve whose tangent vanishes somewhere
///         (coincident handles).
WireDeformer wire_deformer_precompute(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXd>& handles,
                                      int samples_per_segment = 30);

/// Deformed vertex positions x(p) (the release's wire_deform).
/// @param w  from wire_deformer_precompute.
/// @param p  #H*2 handle positions, interleaved [x0, y0, x1, y1, ...].
/// @param x  output, #V*2 interleaved vertex positions (must already have that size).
/// @throws std::invalid_argument if p or x has the wrong size, p is not finite, or the curve's
///         tangent vanishes at a sample some vertex uses (naming it).
void wire_deform(const WireDeformer& w, const Eigen::Ref<const VectorXd>& p, Eigen::Ref<VectorXd> x);

/// Analytic Jacobian dx/dp of wire_deform at p (formula in the file comment).
/// @return #V*2 x #H*2 sparse matrix, interleaved rows and columns (up to 4 entries per vertex and
///         handle the vertex's sample depends on, exact zeros dropped).
/// @throws as wire_deform.
SparseMatrix wire_jacobian(const WireDeformer& w, const Eigen::Ref<const VectorXd>& p);

}  // namespace fastcd
