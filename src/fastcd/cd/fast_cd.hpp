#pragma once
// Fast complementary dynamics (Benchekroun et al. 2023; the seed's ReducedCD): u_c = B z in a
// rig-orthogonal skinning-eigenmode subspace, one ARAP rotation per element cluster, and a
// tiny dense prefactored global solve. A step costs nothing that grows with the mesh.
#include <Eigen/Cholesky>

#include "fastcd/cd/complementarity.hpp"
#include "fastcd/cd/options.hpp"

namespace fastcd {

/// Precomputed fast solver. The local/global iteration is folded: with
/// GB = (P mu vol (x) I) G B (per-cluster deformation of the modes), Hr = B^T (L + M/h^2) B,
/// K = Hr^{-1} GB^T and S = GB K, one iteration is F <- F0 + S r, r = polar(F) per cluster,
/// and z = z0 + K r at the end — exactly the seed's iteration, without touching the mesh.
/// In 2D the closest rotation of F depends only on (F00 + F11, F10 - F01) and is described by
/// (cos, sin), so the iteration runs on 2 numbers per cluster instead of 4 (Sf = P S Q).
struct FastCD {
  Index dim = 0, n_vertices = 0;
  CDOptions options;
  SparseMatrix J;
  VectorXd p0;
  VectorXd D;                 ///< #V leak field
  SparseMatrix Mv;            ///< #V*dim lumped mass (for residuals and lifting checks)
  ComplementarityConstraint constraint;  ///< C = J^T M D (C.rank: its numerical rank)
  Index weight_constraint_rank = 0;      ///< rows of the weight-space constraint kept
  MatrixXd W;                 ///< #V x modes skinning eigenmodes (M-orthonormal)
  VectorXd E;                 ///< eigenvalues
  MatrixXd B;                 ///< #V*dim x m M-orthonormal subspace (dense: modes have global support)
  VectorXi labels;            ///< #T rotation cluster of every element
  Index clusters = 0;
  // reduced operators
  MatrixXd GB, GJ;            ///< c*dim^2 x m, c*dim^2 x #p
  MatrixXd BMB, BMJ, BLJ;     ///< m x m, m x #p, m x #p
  Eigen::LLT<MatrixXd> Hr;    ///< B^T L B + B^T M B / h^2
  MatrixXd K, S;              ///< folded iteration operators (F space)
  // The iteration as run by fast_cd_step, on nf numbers per cluster (2D: 2, 3D: 9):
  MatrixXd Z_y, Z_q, Z_p;     ///< z0 = Z_y y - Z_q q - Z_p p_next  (Hr^{-1} folded in)
  MatrixXd F_y, F_q, F_p;     ///< F0 = F_y y - F_q q + F_p p_next (folded only)
  MatrixXd Gf, GJf;           ///< F(z) = Gf z + GJf p_next (warm start)
  MatrixXd Sf, Kf;            ///< folded: F <- F0 + Sf r; plain: F <- Gf (z0 + Kf r) + GJf p;
                              ///< z = z0 + Kf r. Sf is empty when the plain iteration is cheaper
  VectorXd z_g, F_g;          ///< constant shifts of z0 and (folded) F0 from gravity (empty without)
  VectorXd Bf_ext;            ///< B^T Mv g (empty without gravity)
  double structural_residual = 0.0;  ///< ||C B||_F / (||C||_F ||B||_F)
  Index state_dim() const { return B.cols(); }
  bool folded() const { return Sf.size() > 0; }  ///< iteration folded (small) or plain (large)
  Index n_rot() const { return clusters; }
};

/// Scratch space for `fast_cd_step`, so that stepping allocates nothing.
struct FastCDWorkspace {
  VectorXd q, z0, F0, F, r, zprev;
  VectorXd s_next;  ///< fast_cd_advance's new z (swapped with the state's)
};

FastCD fast_cd_precompute(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                          const SparseMatrix& J, const Eigen::Ref<const VectorXd>& p0,
                          const CDOptions& options = {});

/// The seed's ReducedCD.step: z after one step while the rig moves p -> p_next.
/// Allocation-free once `ws` and `z_out` have their sizes. `iterations` < 0 uses the options'.
void fast_cd_step(const FastCD& sys, const Eigen::Ref<const VectorXd>& z, const Eigen::Ref<const VectorXd>& z_dot,
                  const Eigen::Ref<const VectorXd>& p, const Eigen::Ref<const VectorXd>& p_dot,
                  const Eigen::Ref<const VectorXd>& p_next, Eigen::Ref<VectorXd> z_out, FastCDWorkspace& ws,
                  int iterations = -1);
VectorXd fast_cd_step(const FastCD& sys, const Eigen::Ref<const VectorXd>& z, const Eigen::Ref<const VectorXd>& z_dot,
                      const Eigen::Ref<const VectorXd>& p, const Eigen::Ref<const VectorXd>& p_dot,
                      const Eigen::Ref<const VectorXd>& p_next, int iterations = -1);

CDState fast_cd_initial_state(const FastCD& sys);
void fast_cd_advance(const FastCD& sys, CDState& state, const Eigen::Ref<const VectorXd>& p_next,
                     FastCDWorkspace& ws);
/// u_c = B z (#V*dim).
VectorXd fast_cd_lift(const FastCD& sys, const Eigen::Ref<const VectorXd>& z);
/// Vertex positions J p + B z (#V x dim).
MatrixXd fast_cd_positions(const FastCD& sys, const CDState& state);

/// The reduced step objective at z (optimal rotation per cluster); never increased by the
/// iterations.
double fast_cd_energy(const FastCD& sys, const Eigen::Ref<const VectorXd>& zc, const Eigen::Ref<const VectorXd>& z,
                      const Eigen::Ref<const VectorXd>& z_dot, const Eigen::Ref<const VectorXd>& p,
                      const Eigen::Ref<const VectorXd>& p_dot, const Eigen::Ref<const VectorXd>& p_next);

}  // namespace fastcd
