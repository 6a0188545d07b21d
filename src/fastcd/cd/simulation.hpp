#pragma once
// Simulation: one object that runs complementary dynamics on a mesh under a rig, for either
// solver (full order, Zhang et al. 2020; fast, Benchekroun et al. 2023), seen through one
// interface (CDSolver, cd_solver.hpp). It owns the precomputed solver, the state, the
// workspace, the divergence monitor and the per-frame statistics, so every caller (the CLI's run / tutorial / bench,
// the Python module, the tests) advances a roll-out the same way:
//
//   Simulation sim(X, T, rig, options);
//   for (const VectorXd& p : poses) sim.advance(p);   // one time step to rig pose p
//   MatrixXd x = sim.positions();                      // rig + complementary motion
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fastcd/cd/cd_solver.hpp"
#include "fastcd/cd/divergence.hpp"
#include "fastcd/cd/fast_cd.hpp"
#include "fastcd/cd/full_cd.hpp"
#include "fastcd/cd/global_step.hpp"
#include "fastcd/cd/options.hpp"
#include "fastcd/cd/rig.hpp"
#include "fastcd/cd/rig_motion.hpp"
#include "fastcd/cd/simulation_options.hpp"

namespace fastcd {

/// What one step measured (monitor on; step_seconds always).
struct FrameStats {
  double step_seconds = 0.0;    ///< the solver's step alone
  double residual = 0.0;        ///< residual() after the step: ||C u_c|| / (||C|| max(||u_c||, 1e-8 ||X||))
  double kinetic_energy = 0.0;  ///< 1/2 u_c_dot^T M u_c_dot of the complementary motion
};

/// Totals over the steps taken since construction or reset().
struct SimulationStats {
  long steps = 0;
  double step_seconds = 0.0;  ///< sum of the solver steps
  double max_residual = 0.0;
  double max_kinetic_energy = 0.0;
  double sum_kinetic_energy = 0.0;
  // How far things moved from the rest pose (largest change of a coordinate, monitor on): the
  // rig's positions and the simulated mesh's (rig + u_c) on the mesh's boundary (what is seen),
  // and the complementary displacement u_c anywhere.
  double max_rig_travel = 0.0;
  double max_travel = 0.0;
  double max_displacement = 0.0;
  double mean_kinetic_energy() const { return steps > 0 ? sum_kinetic_energy / static_cast<double>(steps) : 0.0; }
  double mean_step_seconds() const { return steps > 0 ? step_seconds / static_cast<double>(steps) : 0.0; }
};

class Simulation {
 public:
  /// Precomputes the chosen solver for mesh (X, T) (#V x dim, #T x (dim+1)) under `rig`
  /// (kept alive by the simulation) and starts at the rig's rest pose, at rest.
  /// @throws std::invalid_argument for bad meshes, options, a rig that does not fit the mesh,
  ///         or a nonlinear rig with the fast solver (its subspace is built for one constant J).
  /// @throws std::runtime_error when a factorisation or eigen-solve fails.
  Simulation(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T, std::shared_ptr<const Rig> rig,
             const SimulationOptions& options = {});
  /// The same for a linear rig x = J p with rest pose p0.
  Simulation(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T, const SparseMatrix& J,
             const Eigen::Ref<const VectorXd>& p0, const SimulationOptions& options = {});
  /// Copies share the (immutable) precompute; each has its own state and workspace.
  Simulation(const Simulation& o);
  Simulation& operator=(const Simulation& o);
  Simulation(Simulation&&) noexcept;
  Simulation& operator=(Simulation&&) noexcept;
  ~Simulation();

  /// One time step (dt) to rig pose p_next (#p): the rig moves, the solver steps the
  /// complementary motion, velocities follow by finite differences, and (monitor on) the step
  /// is checked for divergence and measured.
  /// @throws std::invalid_argument for a pose of the wrong size or with NaN/Inf;
  ///         std::runtime_error "the simulation diverged at step N: ..." on divergence (the
  ///         state is that of the diverged step).
  void advance(const Eigen::Ref<const VectorXd>& p_next);
  /// Back to the rest pose, at rest; statistics cleared.
  void reset();
  /// Installs a correction of the global step (a collider, an interaction force; see
  /// global_step.hpp): every later advance runs hook->global_step once per local/global iteration
  /// of its step, in the solver's coordinates (fast: z, its force B^T f of a physical force f;
  /// full: u_c, #V*dim). nullptr removes it, and the steps are then bit for bit those of a
  /// simulation that never had one. Not owned: the hook must outlive the steps taken with it.
  /// Without dynamics (options().dynamics false) no step iterates and the hook is never called.
  /// A copy of the simulation starts without a hook (a hook keeps per-step state of the one
  /// simulation it serves, e.g. a contact active set); reset() keeps it.
  void set_global_step_hook(GlobalStepHook* hook);
  GlobalStepHook* global_step_hook() const { return solver_->global_step_hook(); }

  // ---- state (per-vertex quantities are #V x dim)
  MatrixXd positions() const;      ///< x_rig(p) + u_c
  MatrixXd rig_positions() const;  ///< x_rig(p)
  /// The same into x (#V x dim), allocating nothing: for a loop that keeps its buffers.
  /// @throws std::invalid_argument when x is not #V x dim.
  void positions(Eigen::Ref<MatrixXd> x) const;
  void rig_positions(Eigen::Ref<MatrixXd> x) const;
  MatrixXd displacement() const;                   ///< u_c, the complementary displacement
  MatrixXd velocities() const;                     ///< x_rig_dot + u_c_dot (finite differences of the last step)
  const CDState& state() const { return state_; }  ///< s (u_c or z), s_dot, p, p_dot
  long step_count() const { return stats_.steps; }
  double time() const { return static_cast<double>(stats_.steps) * options_.cd.dt; }
  /// ||C u_c|| / (||C|| max(||u_c||, 1e-8 ||X||)) now: relative to u_c, floored at 1e-8 of the
  /// rest mesh's size so that rounding-level motion does not read as a violated constraint.
  double residual() const;
  double kinetic_energy() const;  ///< 1/2 u_c_dot^T M u_c_dot now
  const FrameStats& last_step() const { return last_; }
  const SimulationStats& stats() const {
    count_travel();
    return stats_;
  }
  /// What the steps so far say about the settings, in words (empty when nothing is odd): the
  /// simulated mesh held in place while the rig moves it (a material far too soft or heavy, or a
  /// time step far too short, for the rig to carry it), or secondary motion too small to see.
  std::vector<std::string> warnings() const;

  // ---- what was built
  SolverKind solver() const { return options_.solver; }
  const SimulationOptions& options() const { return options_; }
  const Rig& rig() const { return *rig_; }
  std::shared_ptr<const Rig> rig_ptr() const { return rig_; }
  Index dim() const { return dim_; }
  Index num_vertices() const { return n_; }
  Index num_params() const { return rig_->num_params(); }
  /// The solver (nullptr for the other kind).
  const FullCD* full() const { return solver_->full(); }
  const FastCD* fast() const { return solver_->fast(); }
  /// The solver as the simulation sees it (CDSolver: stepping, lifting, measuring).
  const CDSolver& cd_solver() const { return *solver_; }
  const ComplementarityConstraint& constraint() const;  ///< the current frame's C = J(p)^T M D
  const VectorXd& D() const;                            ///< #V momentum-leak field
  LeakFieldKind leak_field_used() const;                ///< the field D is (options' kind, or Centroid)
  double precompute_seconds() const { return precompute_s_; }
  /// Bytes held: the solver, the state and the workspace.
  std::size_t memory_bytes() const;

 private:
  void build(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T);
  const VectorXd& uc() const;      ///< u_c (#V*dim), lifted on demand
  const VectorXd& uc_dot() const;  ///< its velocity
  /// Counts the last step in the statistics that need positions (the travel on the boundary,
  /// the largest |u_c|, a jump of the rig) when it has not been counted yet: when its positions
  /// are read (positions() and the like lift them anyway), before the next step, or when the
  /// statistics are read. The step's own check needs none of it (the solver measures in its own
  /// coordinates), so a step whose positions nobody reads is counted in one lift at the next.
  void count_travel() const;
  /// Refuses a buffer that is not #V x dim, naming `what` (positions, rig_positions).
  void check_buffer(const Eigen::Ref<MatrixXd>& x, const char* what) const;
  /// The cause of a rig jump of `jump` in the last step, in words ("handle 3 of 5 ... moves 2.1").
  std::string describe_jump(double jump) const;

  SimulationOptions options_;
  std::shared_ptr<const Rig> rig_;
  Index dim_ = 0, n_ = 0;
  std::unique_ptr<CDSolver> solver_;
  CDState state_;
  // Rig positions are evaluated only when something reads them (positions(), the statistics, a
  // rig the full solver steps in positions): a fast step then touches nothing of mesh size.
  RigMotion rig_motion_;
  mutable VectorXd uc_, uc_dot_;  ///< lifted u_c and velocity (zero without dynamics)
  mutable bool uc_current_ = false, uc_dot_current_ = false;
  mutable bool uc_is_state_ = false, uc_dot_is_state_ = false;  ///< the solver's u_c is s itself (full order)
  mutable bool travel_pending_ = false;                         ///< the last step is not in the travel statistics yet
  mutable std::optional<DivergenceMonitor> monitor_;
  double residual_floor_ = 0.0;   ///< 1e-8 ||X||: the smallest ||u_c|| residual() divides by
  double extent_ = 0.0;           ///< the rest mesh's size (largest bounding-box side)
  double stiffness_ratio_ = 0.0;  ///< a typical element's stiffness over its mass / dt^2
  VectorXd x_rig_rest_;           ///< x(p0), for the travel statistics
  VectorXd boundary_mask_;        ///< #V*dim: 1 on the boundary's vertices (the travel statistics'), 0 elsewhere
  MatrixXd corners_;              ///< the rest bounding box's 2^dim corners (rows), to measure handle jumps
  double precompute_s_ = 0.0;
  FrameStats last_;
  mutable SimulationStats stats_;
};

}  // namespace fastcd
