#pragma once
// Full-order complementary dynamics (the seed's FullCD): per-element ARAP rotations and a
// prefactored constrained global solve keeping J^T M D u_c = 0.
#include <Eigen/Cholesky>

#include "fastcd/cd/complementarity.hpp"
#include "fastcd/cd/options.hpp"
#include "fastcd/cd/rig.hpp"
#include "fastcd/geometry/elastic_operators.hpp"
#include "fastcd/solvers/arap_elements.hpp"
#include "fastcd/solvers/kron_cholesky.hpp"

namespace fastcd {

/// Everything that does not change between steps. Build with `full_cd_precompute`.
///
/// Global step: minimise 1/(2h^2) ||u - y + J q||_M^2 + sum_e mu vol_e/2 ||F_e(J p+ + u) - R_e||^2
/// subject to C u = 0. Instead of factoring the indefinite KKT matrix, H = L + M/h^2 is
/// factorised once (sparse Cholesky of its scalar block Hs, since H = kron(Hs, I_dim)), with Y = H^{-1} Cb^T and the small SPD Schur complement
/// S = Cb Y over an orthonormal basis Cb of C's row space; a solve is u0 = H^{-1} b,
/// u = u0 - Y S^{-1} (Cb u0).
struct FullCD {
  Index dim = 0;
  CDOptions options;
  ElasticOperators op;
  SparseMatrix J;
  VectorXd p0;
  VectorXd D;                          ///< #V leak field
  ComplementarityConstraint constraint;
  SparseMatrix Hs;                     ///< scalar Ks + Ms / h^2; H = L + Mv/h^2 = kron(Hs, I_dim)
  ArapElements arap;                   ///< per-element G and G^T AMue (the local step's operators)
  VectorXd f_ext;                      ///< Mv g (external force), empty without gravity
  KronCholesky H_factor;               ///< factor of Hs, solving with H on interleaved vectors
  MatrixXd Y;                          ///< H^{-1} basis^T
  // (Initialised on an empty matrix: a default LLT leaves its status uninitialised, and copying
  // the system before a constraint is set would read it.)
  Eigen::LLT<MatrixXd> schur{MatrixXd(0, 0)};  ///< basis H^{-1} basis^T
  Index n_rot() const { return op.vol.size(); }
  Index state_dim() const { return op.Mv.rows(); }
};

/// Precomputes the full-order solver for mesh (X, T) under rig J (#V*dim x #p) whose rest
/// pose is p0.
/// @throws std::invalid_argument for bad meshes/rigs/options; std::runtime_error when a
///         factorisation fails.
FullCD full_cd_precompute(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                          const SparseMatrix& J, const Eigen::Ref<const VectorXd>& p0,
                          const CDOptions& options = {});

/// Full order for any rig (see rig.hpp): J = rig.jacobian(rest), p0 = rig.rest_params().
FullCD full_cd_precompute(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T, const Rig& rig,
                          const CDOptions& options = {});

/// Replaces the constraint by J^T M D for a new rig Jacobian (a nonlinear rig, every frame).
/// H's factorisation is reused: only the thin Y = H^{-1} basis^T (rank solves) and the small
/// Schur complement are rebuilt.
void full_cd_update_constraint(FullCD& sys, const SparseMatrix& J);

/// Scratch space for full_cd_step (sized on first use, reused afterwards).
struct FullCDWorkspace {
  VectorXd Jp, yhat, b0, x, F, R, b, u_prev, lambda, scratch;
  VectorXd s_next;  ///< full_cd_advance's new u_c (swapped with the state's)
};

/// The seed's FullCD.step into u_out, reusing `ws`.
void full_cd_step(const FullCD& sys, const Eigen::Ref<const VectorXd>& uc, const Eigen::Ref<const VectorXd>& uc_dot,
                  const Eigen::Ref<const VectorXd>& p, const Eigen::Ref<const VectorXd>& p_dot,
                  const Eigen::Ref<const VectorXd>& p_next, Eigen::Ref<VectorXd> u_out, FullCDWorkspace& ws,
                  int iterations = -1);

/// The seed's FullCD.step: returns u_c after one backward-Euler step from (uc, uc_dot) while
/// the rig moves from p (velocity p_dot) to p_next. `iterations` < 0 uses the options'.
VectorXd full_cd_step(const FullCD& sys, const Eigen::Ref<const VectorXd>& uc,
                      const Eigen::Ref<const VectorXd>& uc_dot, const Eigen::Ref<const VectorXd>& p,
                      const Eigen::Ref<const VectorXd>& p_dot, const Eigen::Ref<const VectorXd>& p_next,
                      int iterations = -1);

/// The step written in rig positions instead of parameters: the rig enters only through its
/// positions now (xr), their velocity (xr_dot) and the next positions (xr_next), all #V*dim.
/// Equals full_cd_step with xr = J p, xr_dot = J p_dot, xr_next = J p_next; works for any rig.
void full_cd_step_positions(const FullCD& sys, const Eigen::Ref<const VectorXd>& uc,
                            const Eigen::Ref<const VectorXd>& uc_dot, const Eigen::Ref<const VectorXd>& xr,
                            const Eigen::Ref<const VectorXd>& xr_dot, const Eigen::Ref<const VectorXd>& xr_next,
                            Eigen::Ref<VectorXd> u_out, FullCDWorkspace& ws, int iterations = -1);

/// Rest state for any rig: u_c = 0, p = rig.rest_params(), x = rig positions, all at rest.
CDState full_cd_initial_state(const FullCD& sys, const Rig& rig);

/// One step of any rig to pose p_next: rig positions from the rig, velocities by finite
/// differences; for a nonlinear rig the constraint is first rebuilt from J(p_next)
/// (full_cd_update_constraint), so J(p)^T M D u_c = 0 holds every frame.
void full_cd_advance(FullCD& sys, const Rig& rig, CDState& state, const Eigen::Ref<const VectorXd>& p_next,
                     FullCDWorkspace& ws);

/// Rest state: u_c = 0, at rest, rig at p0.
CDState full_cd_initial_state(const FullCD& sys);

/// Steps `state` to rig pose p_next, updating velocities by finite differences (as the seed's
/// roll-out does).
void full_cd_advance(const FullCD& sys, CDState& state, const Eigen::Ref<const VectorXd>& p_next);
void full_cd_advance(const FullCD& sys, CDState& state, const Eigen::Ref<const VectorXd>& p_next, FullCDWorkspace& ws);

/// Vertex positions J p + u_c (#V x dim) of a state.
MatrixXd full_cd_positions(const FullCD& sys, const CDState& state);

/// The step's objective at u (rotations chosen optimally per element); the local/global
/// iterations never increase it.
double full_cd_energy(const FullCD& sys, const Eigen::Ref<const VectorXd>& u,
                      const Eigen::Ref<const VectorXd>& uc, const Eigen::Ref<const VectorXd>& uc_dot,
                      const Eigen::Ref<const VectorXd>& p, const Eigen::Ref<const VectorXd>& p_dot,
                      const Eigen::Ref<const VectorXd>& p_next);

}  // namespace fastcd
