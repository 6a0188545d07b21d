#pragma once
// Fast complementary dynamics (Benchekroun et al. 2023, "Fast Complementary Dynamics via
// Skinning Eigenmodes"; simkit tutorial 23's ReducedCD): u_c = B z in a rig-orthogonal
// skinning-eigenmode subspace, one ARAP rotation per element cluster, and a tiny dense
// prefactored global solve. A step costs nothing that grows with the mesh.
#include <cstddef>
#include <memory>

#include <Eigen/Cholesky>

#include "fastcd/cd/complementarity.hpp"
#include "fastcd/cd/global_step.hpp"
#include "fastcd/cd/options.hpp"

namespace fastcd {

/// The reduced operators of tutorial 23's ReducedCD, as it names them (kept for energies,
/// checks and users who want the plain form; the step itself runs a faster equivalent).
struct ReducedOperators {
  MatrixXd GB, GJ;         ///< c*dim^2 x m, c*dim^2 x #p: per-cluster mu vol weighted F (row-major)
  MatrixXd BMB, BMJ, BLJ;  ///< m x m, m x #p, m x #p
  // (Initialised on an empty matrix: a default LLT leaves its status uninitialised.)
  Eigen::LLT<MatrixXd> Hr{MatrixXd(0, 0)};  ///< B^T L B + B^T M B / h^2
};

/// The part of the fast precompute that depends only on the mesh, the rig, the leak and
/// fixed-vertex settings and the subspace sizes (modes, clusters), not on the material, dt,
/// iterations or gravity: the momentum-leak field, the skinning eigenmodes and the rotation
/// clusters. It is most of the precompute's time; a precompute cache stores it (FastCD::subspace)
/// and gives it back to fast_cd_precompute, which then skips those stages.
struct FastCDSubspace {
  VectorXd D;                                          ///< #V leak field
  LeakFieldKind leak_used = LeakFieldKind::Diffusion;  ///< the field D is
  MatrixXd W;                                          ///< #V x modes skinning eigenmodes
  VectorXd E;                                          ///< modes eigenvalues
  VectorXi labels;                                     ///< #T rotation cluster of every element
  Index weight_constraint_rank = 0;                    ///< rows of the weight-space constraint kept
};

/// The precomputed fast solver. Build it with `fast_cd_precompute`; step it with `step` or
/// `advance` (or let a `Simulation` do both). The state s is z (u_c = B z).
///
/// The subspace is LBS of the mode weights, so B = Phi (x) I_dim: B(v*dim + i, k*dim + i) =
/// Phi(v, k), with Phi = [w_k * x_l, w_k] (#V x modes*(dim+1)) M-orthonormalised on the scalar
/// mass. Every vertex displacement is u_v = Z Phi(v, :)^T with Z the dim x mt view of z, every
/// cluster's (mu vol weighted) deformation gradient is F_c = Z Q_c, and the reduced system
/// matrix is Hr = Hs_r (x) I_dim with Hs_r = Phi^T Hs Phi (mt x mt).
///
/// Two iteration forms, both exactly tutorial 23's ReducedCD iteration:
/// - folded (small systems): F <- F0 + Sf r on a few numbers per cluster, r = polar(F) (in 2D
///   on (F00 + F11, F10 - F01) with r = (cos, sin)); z = z0 + Kf r at the end;
/// - structured (otherwise): per tile of 8 clusters F_t = Q_t Z^T + F_J, R_t = polar(F_t),
///   g += Q_t^T R_t; then Z^T = Z0^T + Hs_r^{-1} g. Q is only mt x dim*c (dim^2 times less than
///   the dense GB) and is read once per iteration, a tile at a time, so the step stays in cache.
/// A rig whose J is J_s (x) I_dim (LBS, cages; `scalar_rig()`) enters the step through its
/// scalar blocks, dim^2 times smaller again.
/// Both forms, in both precisions, end each iteration in the same global step, Hr z = b, where a
/// GlobalStepHook (Workspace::hook; global_step.hpp) may add a force f in subspace coordinates:
/// z = z_free + Hr^{-1} f. The folded form carries the correction into F exactly (F is linear in
/// z: F gains Gf Hr^{-1} f), so it still never forms z per iteration without a hook.
/// Copies share the (immutable) precomputed data.
class FastCD {
 public:
  /// Scratch space of `step` / `advance`: sized on first use, allocation-free afterwards. One
  /// workspace per thread stepping the same solver.
  struct Workspace {
    VectorXd q, z0, F0, F, r, zprev, g;
    Eigen::VectorXf Vf, rf;  ///< Precision::Mixed: V and the rotations in single precision
    VectorXd s_next;         ///< advance's new z (swapped with the state's)
    /// Optional correction of every iteration's global step (not owned; null: none). See
    /// global_step.hpp: called once per iteration of every step run with this workspace.
    GlobalStepHook* hook = nullptr;
    VectorXd hook_force, hook_delta;  ///< the hook's force f and its correction Hr^{-1} f
  };

  FastCD();  ///< empty; use fast_cd_precompute
  FastCD(const FastCD&);
  FastCD& operator=(const FastCD&);
  FastCD(FastCD&&) noexcept;
  FastCD& operator=(FastCD&&) noexcept;
  ~FastCD();

  // ---- what a user reads
  Index dim() const;
  Index num_vertices() const;
  Index state_dim() const;  ///< m = modes*(dim+1)*dim, or fewer when modes were dependent
  Index basis_dim() const;  ///< mt = state_dim() / dim, the columns of Phi
  Index n_rot() const;      ///< rotations per local step (the clusters)
  const CDOptions& options() const;
  const SparseMatrix& J() const;                        ///< #V*dim x #p rig Jacobian
  const VectorXd& p0() const;                           ///< #p rest pose
  const VectorXd& D() const;                            ///< #V momentum-leak field
  LeakFieldKind leak_field_used() const;                ///< the field D is (the options' kind, or Centroid)
  const SparseMatrix& Mv() const;                       ///< #V*dim lumped mass
  const ComplementarityConstraint& constraint() const;  ///< C = J^T M D (rank: its numerical rank)
  Index weight_constraint_rank() const;                 ///< rows of the weight-space constraint kept
  const MatrixXd& W() const;                            ///< #V x modes skinning eigenmodes (M-orthonormal)
  const VectorXd& eigenvalues() const;                  ///< modes, ascending
  const MatrixXd& Phi() const;                          ///< #V x mt scalar basis, B = Phi (x) I_dim
  const MatrixXd& B() const;                            ///< #V*dim x m M-orthonormal subspace (dense)
  const VectorXi& labels() const;                       ///< #T rotation cluster of every element
  FastCDSubspace subspace() const;                      ///< D, W, E and labels: what a precompute cache keeps
  double structural_residual() const;                   ///< ||C B||_F / (||C||_F ||B||_F)
  const ReducedOperators& reduced_operators() const;
  bool folded() const;
  /// The rig's Jacobian is J_s (x) I_dim, so the step uses its scalar blocks.
  bool scalar_rig() const;  ///< which iteration form runs (folded for small systems, else structured)

  // ---- stepping (the same signatures as FullCD)
  /// Rest state: z = 0, at rest, rig at p0.
  CDState initial_state() const;
  /// Tutorial 23's ReducedCD.step: z after one step from (s, s_dot) while the rig moves from p
  /// (velocity p_dot) to p_next, into s_out. Allocation-free once `ws` and s_out have their
  /// sizes. `iterations` < 0 uses the options'.
  /// @throws std::invalid_argument for wrong sizes or non-finite inputs.
  void step(const Eigen::Ref<const VectorXd>& s, const Eigen::Ref<const VectorXd>& s_dot,
            const Eigen::Ref<const VectorXd>& p, const Eigen::Ref<const VectorXd>& p_dot,
            const Eigen::Ref<const VectorXd>& p_next, Eigen::Ref<VectorXd> s_out, Workspace& ws,
            int iterations = -1) const;
  /// The same, returning a new vector.
  VectorXd step(const Eigen::Ref<const VectorXd>& s, const Eigen::Ref<const VectorXd>& s_dot,
                const Eigen::Ref<const VectorXd>& p, const Eigen::Ref<const VectorXd>& p_dot,
                const Eigen::Ref<const VectorXd>& p_next, int iterations = -1) const;
  /// One step of `state` to rig pose p_next, velocities by finite differences over dt.
  void advance(CDState& state, const Eigen::Ref<const VectorXd>& p_next, Workspace& ws) const;
  /// u_c = B z (#V*dim), computed as Phi Z^T (#V * mt * dim operations, not #V * dim * m);
  /// allocation-free into u.
  void lift(const Eigen::Ref<const VectorXd>& s, Eigen::Ref<VectorXd> u) const;
  VectorXd lift(const Eigen::Ref<const VectorXd>& s) const;
  /// The same u_c = B z in skinning form, as a GPU skinning shader computes it: per-mode affine
  /// transforms T_k = mode_transforms(z) blended with the scalar mode weights,
  /// u_v = sum_k W(v, k) T_k [X_v; 1], in single precision (#V * modes * dim * (dim+1)
  /// operations, reading modes + dim floats per vertex instead of a row of the dense Phi).
  /// Agrees with lift() to single-precision rounding (relative to max |u|). On up to
  /// `max_threads` threads (parallel_for; the result does not depend on the count).
  void lift_skinned(const Eigen::Ref<const VectorXd>& s, Eigen::Ref<Eigen::VectorXf> u, int max_threads = 1) const;
  /// The per-mode transforms of state s: T (modes x dim*(dim+1)); row k holds the column-major
  /// [A_k | t_k] (dim x (dim+1)) with u_v = sum_k W(v, k) (A_k X_v + t_k).
  void mode_transforms(const Eigen::Ref<const VectorXd>& s, Eigen::Ref<MatrixXd> T) const;
  /// Vertex positions J p + B z (#V x dim) of a state.
  MatrixXd positions(const CDState& state) const;
  /// The reduced step objective at candidate s_c (optimal rotation per cluster) for the step
  /// from (s, s_dot, p, p_dot) to p_next; never increased by the iterations.
  double energy(const Eigen::Ref<const VectorXd>& s_c, const Eigen::Ref<const VectorXd>& s,
                const Eigen::Ref<const VectorXd>& s_dot, const Eigen::Ref<const VectorXd>& p,
                const Eigen::Ref<const VectorXd>& p_dot, const Eigen::Ref<const VectorXd>& p_next) const;
  /// Bytes held by the precomputed solver.
  std::size_t memory_bytes() const;
  /// Bytes a step reads (the iteration's operators): what must stay in cache.
  std::size_t step_memory_bytes() const;
  /// The global step's solve with its prefactored matrix: z = Hr^{-1} b (m entries each; b and z
  /// may be the same vector), Hr = B^T L B + B^T M B / h^2 = Hs_r (x) I_dim, on its scalar
  /// factor. For a GlobalStepHook's precomputation (e.g. a contact Delassus matrix
  /// U^T Hr^{-1} U); allocation-free.
  void solve_global(const Eigen::Ref<const VectorXd>& b, Eigen::Ref<VectorXd> z) const;

  struct Impl;  ///< precomputed data and iteration operators (opaque; fast_cd_impl.hpp)

  /// Phi's coordinates in the skinning basis Phi_raw = [W_k x_l, W_k] (modes*(dim+1) x mt,
  /// column k*(dim+1) + l of Phi_raw is W_k x_l, l = dim: W_k itself): Phi = Phi_raw Craw to the
  /// precompute's least-squares accuracy. mode_transforms(z) is Craw Z^T rearranged.
  const MatrixXd& skinning_coordinates() const;

 private:
  friend FastCD fast_cd_precompute(const Eigen::Ref<const MatrixXd>&, const Eigen::Ref<const MatrixXi>&,
                                   const SparseMatrix&, const Eigen::Ref<const VectorXd>&, const CDOptions&,
                                   const FastCDSubspace*);
  const Impl& impl() const;
  std::shared_ptr<const Impl> impl_;
};

/// Precomputes the fast solver for mesh (X, T) under the linear rig J (#V*dim x #p) whose rest
/// pose is p0: rig-orthogonal skinning eigenmodes (options.modes), rotation clusters
/// (options.clusters) and the reduced operators.
/// @throws std::invalid_argument for bad meshes/rigs/options (e.g. more modes than the
///         rig-orthogonal space holds); std::runtime_error when an eigen-solve or
///         factorisation fails.
/// With `subspace` (from an earlier precompute of the same mesh, rig and settings:
/// FastCD::subspace), the leak field, eigenmodes and clusters are taken from it instead of
/// computed (checked for sizes, ranges, finiteness and rig-orthogonality: one that does not fit
/// throws std::invalid_argument); the rest is built as without it.
FastCD fast_cd_precompute(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                          const SparseMatrix& J, const Eigen::Ref<const VectorXd>& p0, const CDOptions& options = {},
                          const FastCDSubspace* subspace = nullptr);

}  // namespace fastcd
