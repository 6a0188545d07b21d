#pragma once
// Fast complementary dynamics (Benchekroun et al. 2023; the seed's ReducedCD): u_c = B z in a
// rig-orthogonal skinning-eigenmode subspace, one ARAP rotation per element cluster, and a
// tiny dense prefactored global solve. A step costs nothing that grows with the mesh.
#include <Eigen/Cholesky>

#include "fastcd/cd/complementarity.hpp"
#include "fastcd/cd/options.hpp"

namespace fastcd {

/// Precomputed fast solver.
///
/// The subspace is LBS of the mode weights, so B = Phi (x) I_dim: B(v*dim + i, k*dim + i) =
/// Phi(v, k), with Phi = [w_k * x_l, w_k] (#V x modes*(dim+1)) M-orthonormalised on the scalar
/// mass (the Householder QR of B itself gives the same basis). The state z is then the
/// column-major dim x mt matrix Z (z(k*dim + i) = Z(i, k)), every vertex displacement is
/// u_v = Z Phi(v, :)^T, every cluster's (mu vol weighted) deformation gradient is
/// F_c = Z Q_c with Q_c = sum_{e in c} mu_e vol_e sum_v Phi(v, :)^T grad phi_v(e)^T (mt x dim),
/// and the reduced system matrix is Hr = Hs_r (x) I_dim with Hs_r = Phi^T Hs Phi (mt x mt).
///
/// Two iteration forms, both exactly the seed's ReducedCD iteration:
/// - folded (small systems: nf <= 2m): F <- F0 + Sf r on nf numbers per step, r = polar(F);
///   in 2D on (F00 + F11, F10 - F01) per cluster with r = (cos, sin); z = z0 + Kf r at the end.
/// - structured (otherwise): Z <- Z0 + R Kt^T, F <- Z Q + F_J with Q, Kt = Hs_r^{-1} Q only
///   mt x dim*c each — dim^2 times less than the dense GB, so the step stays in cache — applied
///   by a thin-product kernel that streams each once per iteration.
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
  MatrixXd Phi;               ///< #V x mt scalar basis, B = Phi (x) I_dim (see above)
  MatrixXd B;                 ///< #V*dim x m M-orthonormal subspace (dense: modes have global support)
  VectorXi labels;            ///< #T rotation cluster of every element
  Index clusters = 0;
  // reduced operators (the plain seed form, kept for energies and checks)
  MatrixXd GB, GJ;            ///< c*dim^2 x m, c*dim^2 x #p  (F per cluster, row-major, mu vol weighted)
  MatrixXd BMB, BMJ, BLJ;     ///< m x m, m x #p, m x #p
  // (Initialised on an empty matrix: a default LLT leaves its status uninitialised, and copying
  // the system would read it.)
  Eigen::LLT<MatrixXd> Hr{MatrixXd(0, 0)};  ///< B^T L B + B^T M B / h^2
  // the iteration as run by fast_cd_step
  MatrixXd Zy;                ///< mt x mt Hs_r^{-1} / h^2: Z0 = Y Zy - ... (y = z + h z_dot)
  MatrixXd Z_q, Z_p;          ///< z0 = kron(Zy) y - Z_q q - Z_p p_next  (Hr^{-1} folded in)
  MatrixXd GJf;               ///< rig part of the iterated F: F_J = GJf p_next (structured: entry
                              ///< F_c(i, j) at row i*c*dim + c*dim + j)
  MatrixXd QT;                ///< structured: dim*c x mt, row c*dim + j is column j of Q_c
  MatrixXd Kt;                ///< structured: mt x dim*c, Hs_r^{-1} Q
  MatrixXd Gf;                ///< folded: F(z) = Gf z + GJf p_next (warm start)
  MatrixXd F_y, F_q, F_p;     ///< folded: F0 = F_y y - F_q q + F_p p_next
  MatrixXd Sf, Kf;            ///< folded: F <- F0 + Sf r, z = z0 + Kf r (empty when structured)
  VectorXd z_g, F_g;          ///< constant shifts of z0 and (folded) F0 from gravity (empty without)
  VectorXd Bf_ext;            ///< B^T Mv g (empty without gravity)
  double structural_residual = 0.0;  ///< ||C B||_F / (||C||_F ||B||_F)
  Index state_dim() const { return B.cols(); }
  Index basis_dim() const { return Phi.cols(); }  ///< mt = state_dim() / dim
  bool folded() const { return Sf.size() > 0; }  ///< iteration folded (small) or structured (large)
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
/// u_c = B z (#V*dim), computed as Phi Z^T (#V * mt * dim operations, not #V * dim * m).
VectorXd fast_cd_lift(const FastCD& sys, const Eigen::Ref<const VectorXd>& z);
/// Same into u (#V*dim); allocation-free.
void fast_cd_lift(const FastCD& sys, const Eigen::Ref<const VectorXd>& z, Eigen::Ref<VectorXd> u);
/// Vertex positions J p + B z (#V x dim).
MatrixXd fast_cd_positions(const FastCD& sys, const CDState& state);

/// The reduced step objective at z (optimal rotation per cluster); never increased by the
/// iterations.
double fast_cd_energy(const FastCD& sys, const Eigen::Ref<const VectorXd>& zc, const Eigen::Ref<const VectorXd>& z,
                      const Eigen::Ref<const VectorXd>& z_dot, const Eigen::Ref<const VectorXd>& p,
                      const Eigen::Ref<const VectorXd>& p_dot, const Eigen::Ref<const VectorXd>& p_next);

}  // namespace fastcd
