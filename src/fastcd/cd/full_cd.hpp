#pragma once
// Full-order complementary dynamics (Zhang et al. 2020; simkit tutorial 23's FullCD):
// per-element ARAP rotations and a prefactored constrained global solve keeping
// J^T M D u_c = 0.
#include <cstddef>
#include <memory>

#include <Eigen/Cholesky>

#include "fastcd/cd/complementarity.hpp"
#include "fastcd/cd/global_step.hpp"
#include "fastcd/cd/options.hpp"
#include "fastcd/cd/rig.hpp"
#include "fastcd/geometry/elastic_operators.hpp"

namespace fastcd {

/// The precomputed full-order solver. Build it with `full_cd_precompute`; step it with `step`
/// or `advance` (or let a `Simulation` do both).
///
/// Each step minimises 1/(2h^2) ||u - y + J q||_M^2 + sum_e mu vol_e/2 ||F_e(J p+ + u) - R_e||^2
/// over the complementary displacement u subject to C u = 0 (C = J^T M D), by local/global
/// iterations. Instead of factoring the indefinite KKT matrix, H = L + M/h^2 = kron(Hs, I_dim)
/// is factorised once through its scalar block Hs, with Y = H^{-1} Cb^T and the small SPD
/// Schur complement S = Cb Y over an orthonormal basis Cb of C's row space; a constrained solve
/// is u0 = H^{-1} b, u = u0 - Y S^{-1} (Cb u0).
///
/// An iteration is a local step (the rotations, and from them the right-hand side b) and a
/// global step (that constrained solve), where a GlobalStepHook (Workspace::hook;
/// global_step.hpp) may add a force f in full coordinates: u = u_free + (constrained H^{-1}) f,
/// so C u = 0 holds whatever f is.
///
/// The state s is u_c itself (#V*dim, vertex-interleaved). Copies share the (immutable)
/// factorisation; `set_rig_jacobian` changes only the copy it is called on.
class FullCD {
 public:
  /// Scratch space of `step` / `advance`: sized on first use, allocation-free afterwards. One
  /// workspace per thread stepping the same solver.
  struct Workspace {
    VectorXd Jp, yhat, b0, x, F, R, b, u_prev, lambda, scratch;
    VectorXd s_next;  ///< advance's new u_c (swapped with the state's)
    /// Optional correction of every iteration's global step (not owned; null: none). See
    /// global_step.hpp: called once per iteration of every step run with this workspace.
    GlobalStepHook* hook = nullptr;
    VectorXd hook_force, hook_delta;  ///< the hook's force f and its correction
  };

  FullCD();  ///< empty; use full_cd_precompute
  FullCD(const FullCD&);
  FullCD& operator=(const FullCD&);
  FullCD(FullCD&&) noexcept;
  FullCD& operator=(FullCD&&) noexcept;
  ~FullCD();

  // ---- what a user reads
  Index dim() const;
  Index num_vertices() const;
  Index state_dim() const;  ///< #V*dim
  Index n_rot() const;      ///< rotations per local step (#T)
  const CDOptions& options() const;
  const SparseMatrix& J() const { return J_; }  ///< #V*dim x #p rig Jacobian (the current one)
  const VectorXd& p0() const { return p0_; }    ///< #p rest pose
  const VectorXd& D() const;                    ///< #V momentum-leak field
  LeakFieldKind leak_field_used() const;        ///< the field D is (the options' kind, or Centroid)
  const SparseMatrix& Mv() const;               ///< #V*dim lumped mass
  const ComplementarityConstraint& constraint() const { return constraint_; }
  const ElasticOperators& operators() const;  ///< Mv, G, L, mu, ... (simkit's elastic_operators)

  // ---- stepping (the same signatures as FastCD)
  /// Rest state: u_c = 0, at rest, rig at p0.
  CDState initial_state() const;
  /// Tutorial 23's FullCD.step: u_c after one backward-Euler step from (s, s_dot) while the rig
  /// moves from p (velocity p_dot) to p_next, into s_out; allocation-free once `ws` is sized.
  /// `iterations` < 0 uses the options'.
  /// @throws std::invalid_argument for wrong sizes or non-finite inputs.
  void step(const Eigen::Ref<const VectorXd>& s, const Eigen::Ref<const VectorXd>& s_dot,
            const Eigen::Ref<const VectorXd>& p, const Eigen::Ref<const VectorXd>& p_dot,
            const Eigen::Ref<const VectorXd>& p_next, Eigen::Ref<VectorXd> s_out, Workspace& ws,
            int iterations = -1) const;
  /// The same, returning a new vector.
  VectorXd step(const Eigen::Ref<const VectorXd>& s, const Eigen::Ref<const VectorXd>& s_dot,
                const Eigen::Ref<const VectorXd>& p, const Eigen::Ref<const VectorXd>& p_dot,
                const Eigen::Ref<const VectorXd>& p_next, int iterations = -1) const;
  /// One step of `state` to rig pose p_next, velocities by finite differences over dt (the
  /// tutorial's roll-out). Allocation-free once `ws` is sized.
  void advance(CDState& state, const Eigen::Ref<const VectorXd>& p_next, Workspace& ws) const;
  /// u_c of a state (#V*dim): s itself in full order.
  void lift(const Eigen::Ref<const VectorXd>& s, Eigen::Ref<VectorXd> u) const;
  VectorXd lift(const Eigen::Ref<const VectorXd>& s) const;
  /// Vertex positions J p + u_c (#V x dim) of a state.
  MatrixXd positions(const CDState& state) const;
  /// The step's objective at candidate s_c (optimal rotation per element) for the step from
  /// (s, s_dot, p, p_dot) to p_next; the local/global iterations never increase it.
  double energy(const Eigen::Ref<const VectorXd>& s_c, const Eigen::Ref<const VectorXd>& s,
                const Eigen::Ref<const VectorXd>& s_dot, const Eigen::Ref<const VectorXd>& p,
                const Eigen::Ref<const VectorXd>& p_dot, const Eigen::Ref<const VectorXd>& p_next) const;
  /// Bytes held by the precomputed solver (operators, factor, constraint).
  std::size_t memory_bytes() const;

  // ---- any rig (Zhang et al. 2020: complementary dynamics needs only x(p) and J(p))
  /// The step written in rig positions: the rig enters only through its positions now (xr),
  /// their velocity (xr_dot) and the next positions (xr_next), all #V*dim. Equals `step` with
  /// xr = J p, xr_dot = J p_dot, xr_next = J p_next; works for any rig.
  void step_positions(const Eigen::Ref<const VectorXd>& s, const Eigen::Ref<const VectorXd>& s_dot,
                      const Eigen::Ref<const VectorXd>& xr, const Eigen::Ref<const VectorXd>& xr_dot,
                      const Eigen::Ref<const VectorXd>& xr_next, Eigen::Ref<VectorXd> s_out, Workspace& ws,
                      int iterations = -1) const;
  /// Replaces the constraint by J^T M D for a new rig Jacobian (a nonlinear rig, every
  /// frame). H's factorisation is reused: only Y = H^{-1} basis^T (rank solves) and the small
  /// Schur complement are rebuilt.
  /// @throws std::invalid_argument when J has the wrong shape.
  void set_rig_jacobian(const SparseMatrix& J);
  /// The constrained solve runs on the scalar blocks (J = J_s (x) I_dim: LBS and cage rigs).
  bool scalar_constraint() const { return scalar_constraint_; }
  /// The global step's solve: u = H^{-1} b under C u = 0 (the KKT system [H C^T; C 0] solved
  /// through H's factor and the Schur complement), #V*dim entries each; b and u may be the same
  /// vector. For a GlobalStepHook's precomputation; allocates its scratch (a hook's own
  /// GlobalStepContext::solve does not).
  void solve_global(const Eigen::Ref<const VectorXd>& b, Eigen::Ref<VectorXd> u) const;

  struct Factors;  ///< the precomputed operators and factorisation (opaque; full_cd.cpp)

 private:
  friend FullCD full_cd_precompute(const Eigen::Ref<const MatrixXd>&, const Eigen::Ref<const MatrixXi>&,
                                   const SparseMatrix&, const Eigen::Ref<const VectorXd>&, const CDOptions&);
  void factor_constraint();
  void iterate(const Eigen::Ref<const VectorXd>& s, Eigen::Ref<VectorXd> u, Workspace& ws, int iterations) const;
  void local_step(const Eigen::Ref<const VectorXd>& u, Workspace& ws) const;
  void global_step(int iteration, Eigen::Ref<VectorXd> u, Workspace& ws) const;
  void constrained_solve(const double* b, Eigen::Ref<VectorXd> u, VectorXd& scratch, VectorXd& lambda) const;

  std::shared_ptr<const Factors> f_;
  SparseMatrix J_;
  VectorXd p0_;
  ComplementarityConstraint constraint_;
  // The constrained solve's correction u -= Y S^{-1} B u, with B an orthonormal basis of the
  // constraint's rows. When J = J_s (x) I_dim (LBS, cages) B = B_s (x) I_dim and the
  // correction runs on the scalar blocks: U -= Y_s S_s^{-1} B_s U with U the #V x dim view of
  // u (dim^2 times less to read per iteration).
  bool scalar_constraint_ = false;  ///< (B_s is constraint_.basis_scalar)
  MatrixXd Y_;                      ///< H^{-1} B^T (n x r), or (Hs^{-1} B_s^T)^T padded to r8 x #V
  MatrixXd Bs8_;                    ///< B_s padded with zero rows to r8 x #V (r8: r_s rounded up to 8)
  // (Initialised on an empty matrix: a default LLT leaves its status uninitialised, and copying
  // the solver before a constraint is set would read it.)
  Eigen::LLT<MatrixXd> schur_{MatrixXd(0, 0)};  ///< B H^{-1} B^T (or B_s Hs^{-1} B_s^T)
};

/// Precomputes the full-order solver for mesh (X, T) under rig J (#V*dim x #p) whose rest
/// pose is p0.
/// @throws std::invalid_argument for bad meshes/rigs/options; std::runtime_error when a
///         factorisation fails.
FullCD full_cd_precompute(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                          const SparseMatrix& J, const Eigen::Ref<const VectorXd>& p0, const CDOptions& options = {});

/// Full order for any rig (rig.hpp): J = rig.jacobian(rest), p0 = rig.rest_params().
FullCD full_cd_precompute(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T, const Rig& rig,
                          const CDOptions& options = {});

}  // namespace fastcd
