#pragma once
// Private to the fast solver (fast_cd.cpp, fast_cd_precompute.cpp, fast_cd_kernels.cpp): the
// precomputed data behind FastCD's opaque Impl. Not part of the public API; nothing outside
// src/fastcd/cd/fast_cd*.cpp includes it.
#include <vector>

#include "fastcd/cd/fast_cd.hpp"

namespace fastcd {

/// Everything fast_cd_precompute builds.
struct FastCD::Impl {
  Index dim = 0, n_vertices = 0;
  CDOptions options;
  SparseMatrix J;
  VectorXd p0;
  VectorXd D;
  LeakFieldKind leak_used = LeakFieldKind::Diffusion;
  SparseMatrix Mv;
  ComplementarityConstraint constraint;
  Index weight_constraint_rank = 0;
  MatrixXd W;
  VectorXd E;
  MatrixXd Phi, B;
  // Skinning-form lifting (lift_skinned): Phi = Phi_raw Craw with Phi_raw = [W_k x_l, W_k], so
  // u_v = sum_k W(v, k) T_k [X_v; 1] with T_k read from Craw Z^T. Single precision, blocked in
  // 8 vertices (SIMD lanes): Wf[(b * modes + k) * 8 + lane], Xf[(b * dim + l) * 8 + lane].
  MatrixXd Craw;  ///< modes*(dim+1) x mt
  std::vector<float> Wf, Xf;
  VectorXi labels;
  Index clusters = 0;
  ReducedOperators red;  ///< the plain form (energies, checks)
  // the iteration as run by step()
  MatrixXd Zy;        ///< mt x mt Hs_r^{-1} / h^2: Z0 = Y Zy - ... (y = z + h z_dot)
  MatrixXd Z_q, Z_p;  ///< z0 = kron(Zy) y - Z_q q - Z_p p_next  (Hr^{-1} folded in)
  MatrixXd GJf;       ///< rig part of the iterated F: F_J = GJf p_next (structured: entry
                      ///< F_c(i, j) at row i*nrp + tile_row(c, j), nrp = tiles*8*dim)
  // Structured iteration, in the coordinates V = Z Lh (Hs_r = Lh Lh^T, Z the dim x mt view of
  // z) where Hs_r^{-1} disappears: with P = Q Lh^{-T}, F = F_J + P V^T and the global step
  // Z = Z0 + (Hs_r^{-1} Q^T R)^T becomes V = Z0 Lh + (P^T R)^T. Clusters in tiles of 8 (8*dim
  // rows of P, zero rows past the last cluster): F and the rotations a tile at a time, then
  // P^T R in one pass with all of V's entries in registers.
  Index tiles = 0;
  MatrixXd Ptile;  ///< 8*dim x mt*tiles: tile t in columns t*mt..; its row j*8 + l is column j
                   ///< of P_c for cluster c = 8t + l (tile_row(c, j) = t*8*dim + j*8 + l)
  MatrixXd Prow;   ///< mt8 x nrp: the same rows of P, each contiguous, zero-padded to mt8
  // Precision::Mixed: the same P in single precision, in place of Ptile and Prow (then empty).
  // Pf: tiles in pairs, column k of pair u holding its two tiles' row blocks b as 16 lanes
  // (tile 2u in lanes 0-7, tile 2u+1 in 8-15) at ((u*mt + k)*dim + b)*16; Prowf: Prow's rows
  // zero-padded to mt16 floats.
  Eigen::VectorXf Pf, Prowf;
  Index mt16 = 0;
  MatrixXd LhT, LhInvT;  ///< mt x mt: Lh^T (V^T = Lh^T Z^T) and Lh^{-T} (Z^T = Lh^{-T} V^T), Hs_r = Lh Lh^T
  // The global step's matrix on its scalar block, Hr = Hs_r (x) I_dim (both forms): solve_global
  // and a GlobalStepHook's corrections, Hr^{-1} f as Hs_r^{-1} on the mt x dim view of f.
  Eigen::LLT<MatrixXd> Hs{MatrixXd(0, 0)};
  // A rig with J = J_s (x) I_dim (LBS, cages) enters z0 and F_J through its scalar blocks
  // (dim^2 times smaller than Z_q, Z_p and GJf); ns = J.cols() / dim.
  bool scalar_rig = false;
  MatrixXd Zq_neg, Zp_neg;  ///< mt x ns: Z0^T = Zy Y^T + Zq_neg Q^T + Zp_neg Pn^T (Q, Pn: dim x ns views of q, p_next)
  MatrixXd FJs;             ///< structured: nrp x ns, F_J = FJs Pn^T (Pn: p_next; rows as Ptile's)
  MatrixXd Gf;              ///< folded: F(z) = Gf z + GJf p_next (warm start)
  MatrixXd F_y, F_q, F_p;   ///< folded: F0 = F_y y - F_q q + F_p p_next
  MatrixXd Sf, Kf;          ///< folded: F <- F0 + Sf r, z = z0 + Kf r (empty when structured)
  VectorXd z_g, F_g;        ///< constant shifts of z0 and (folded) F0 from gravity (empty without)
  VectorXd Bf_ext;          ///< B^T Mv g (empty without gravity)
  double structural_residual = 0.0;
  Index state_dim() const { return B.cols(); }
  Index basis_dim() const { return Phi.cols(); }
  bool folded() const { return Sf.size() > 0; }
};

namespace detail {

// ---- the step's kernels (fast_cd_kernels.cpp)

/// `iters` local/global iterations of the step from (z, z_dot, p, p_dot) to p_next, in the
/// form and precision `sys` was built for, into z_out (sizes checked by the caller). Runs
/// ws.hook, when set, once per iteration (its global step). Allocation-free once ws is sized.
void fast_cd_iterate(const FastCD::Impl& sys, const Eigen::Ref<const VectorXd>& z,
                     const Eigen::Ref<const VectorXd>& z_dot, const Eigen::Ref<const VectorXd>& p,
                     const Eigen::Ref<const VectorXd>& p_dot, const Eigen::Ref<const VectorXd>& p_next,
                     Eigen::Ref<VectorXd> z_out, FastCD::Workspace& ws, int iters);

/// out = Hr^{-1} v on the scalar factor Hs (v and out may be the same vector). Allocation-free.
void fast_cd_solve_global(const FastCD::Impl& sys, const Eigen::Ref<const VectorXd>& v, Eigen::Ref<VectorXd> out);

/// lift_skinned's kernel: u of the vertex blocks [b0, b1) (8 vertices each) from the blocked
/// single-precision weights W and positions X (Impl::Wf, Impl::Xf) and the row-major per-mode
/// transforms T (modes x dim*(dim+1)).
void fast_cd_lift_blocks(Index dim, const float* W, const float* X, const float* T, Index modes, Index n, Index b0,
                         Index b1, float* u);

}  // namespace detail
}  // namespace fastcd
