#pragma once
// CDSolver: the one face a Simulation sees of a complementary-dynamics solver. Each solver has
// an adapter (FullCDSolver: full_cd_solver.hpp, FastCDSolver: fast_cd_solver.hpp) that owns
// the precomputed solver and its workspace, steps a CDState, reads u_c and measures a step for
// the divergence monitor in whatever coordinates are cheapest for it; `make_cd_solver` builds
// the adapter a SolverKind names. A new solver is a new adapter and a case in the factory.
#include <cstddef>
#include <memory>
#include <vector>

#include "fastcd/cd/complementarity.hpp"
#include "fastcd/cd/divergence.hpp"
#include "fastcd/cd/global_step.hpp"
#include "fastcd/cd/options.hpp"
#include "fastcd/cd/rig.hpp"
#include "fastcd/cd/rig_motion.hpp"
#include "fastcd/cd/simulation_options.hpp"

namespace fastcd {

class FullCD;
class FastCD;

class CDSolver {
 public:
  virtual ~CDSolver() = default;
  /// A copy sharing the (immutable) precompute, with its own workspace.
  virtual std::unique_ptr<CDSolver> clone() const = 0;

  // ---- what was built
  virtual SolverKind kind() const = 0;
  virtual const FullCD* full() const { return nullptr; }            ///< the solver, when it is the full one
  virtual const FastCD* fast() const { return nullptr; }            ///< the solver, when it is the fast one
  virtual const SparseMatrix& Mv() const = 0;                       ///< #V*dim lumped mass
  virtual const ComplementarityConstraint& constraint() const = 0;  ///< C = J(p)^T M D now
  virtual const VectorXd& D() const = 0;                            ///< #V momentum-leak field
  virtual LeakFieldKind leak_field_used() const = 0;
  /// Bytes held: the precomputed solver, the workspace and the adapter's own data.
  virtual std::size_t memory_bytes() const = 0;

  // ---- stepping
  virtual CDState initial_state() const = 0;
  /// Back at the rest pose (rig.p()), e.g. the constraint for a nonlinear rig's J(p0).
  virtual void reset(const RigMotion& rig) { (void)rig; }
  /// Reads what the next step needs of the rig's positions (`rig` at state.p, not moved yet;
  /// `rig.next(p_next)` for the next ones), outside the step's clock. Nothing by default.
  virtual void prepare(const Eigen::Ref<const VectorXd>& p_next, RigMotion& rig) {
    (void)p_next;
    (void)rig;
  }
  /// One step of `state` to rig pose p_next, velocities by finite differences over dt (state.p
  /// and state.p_dot follow). `rig` is as `prepare` left it.
  virtual void advance(CDState& state, const Eigen::Ref<const VectorXd>& p_next, RigMotion& rig) = 0;
  /// The global-step hook (global_step.hpp) every later `advance` runs once per local/global
  /// iteration, in the solver's own coordinates; nullptr removes it. Not owned: it must outlive
  /// the steps it is set for. Set on this adapter's workspace only (a clone copies the pointer).
  virtual void set_global_step_hook(GlobalStepHook* hook) = 0;
  virtual GlobalStepHook* global_step_hook() const = 0;

  // ---- reading a state
  /// u_c of coordinates s (#V*dim): s itself, or lifted into `scratch` and returned.
  virtual const VectorXd& lift(const VectorXd& s, VectorXd& scratch) const = 0;
  /// 1/2 u_c_dot^T M u_c_dot of the state's complementary velocity.
  virtual double kinetic_energy(const CDState& state) const = 0;
  /// ||C u_c|| / (||C|| max(||u_c||, floor)) for the state's u_c.
  virtual double residual(const CDState& state, double floor) const = 0;
  /// What the divergence monitor reads of the state after a step (`rig` moved to state.p).
  virtual StepMeasures measure(const CDState& state, const RigMotion& rig) const = 0;
};

/// Roughly the bytes a solver's precompute needs at its peak, split into what scales with the
/// mesh (operators, a factor, a basis) and what scales with the rig's parameters times the
/// vertices (the constraint's dense basis and its orthonormalisation, weight-space work).
struct PrecomputeBytes {
  double mesh = 0.0, rig = 0.0;
  double total() const { return mesh + rig; }
};

/// The estimate for solver `kind` on mesh T (n vertices) under `rig` (J: its Jacobian when it
/// is linear, else null).
PrecomputeBytes precompute_bytes(SolverKind kind, const Eigen::Ref<const MatrixXi>& T, Index n, const Rig& rig,
                                 const SparseMatrix* J, const CDOptions& options);

/// Precomputes the adapter of solver options.solver for mesh (X, T) under `rig` (at its rest
/// pose). @throws as the solver's precompute does, and std::invalid_argument for a rig the
/// solver cannot take (the fast solver needs a linear rig).
std::unique_ptr<CDSolver> make_cd_solver(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                                         const Rig& rig, const SimulationOptions& options);

/// Every solver kind, in the order the CLI lists them.
const std::vector<SolverKind>& solver_kinds();

/// Refuses a rig solver `kind` cannot take, before any work (the fast solver needs a linear rig).
/// @throws std::invalid_argument naming the rig and what to use instead.
void check_solver_rig(SolverKind kind, const Rig& rig);

namespace detail {
/// The part of a precompute estimate both solvers share: the rig Jacobian twice and the
/// constraint's dense basis (held throughout), J^T M J (the rig's rank) and the constraint's
/// orthonormalisation. See precompute_bytes.
struct ConstraintBytes {
  double held = 0, gram = 0, constraint = 0, rows = 0, cols = 0;
};
ConstraintBytes constraint_bytes(Index n_vertices, const Rig& rig, const SparseMatrix* J);
}  // namespace detail

}  // namespace fastcd
