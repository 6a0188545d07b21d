#pragma once
// Simulation: one object that runs complementary dynamics on a mesh under a rig, for either
// solver (full order, Zhang et al. 2020; fast, Benchekroun et al. 2023). It owns the
// precomputed solver, the state, the workspace, the divergence monitor and the per-frame
// statistics, so every caller (the CLI's run / tutorial / bench, the Python module, the tests)
// advances a roll-out the same way:
//
//   Simulation sim(X, T, rig, options);
//   for (const VectorXd& p : poses) sim.advance(p);   // one time step to rig pose p
//   MatrixXd x = sim.positions();                      // rig + complementary motion
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fastcd/cd/divergence.hpp"
#include "fastcd/cd/fast_cd.hpp"
#include "fastcd/cd/full_cd.hpp"
#include "fastcd/cd/options.hpp"
#include "fastcd/cd/rig.hpp"

namespace fastcd {

/// The two solvers: full order (every element rotates, the constraint is solved exactly) and
/// fast (skinning-eigenmode subspace, clustered rotations; the Python `ReducedCD`).
enum class SolverKind { Full, Fast };

/// "full" or "fast".
std::string to_string(SolverKind kind);
/// Parses "full" or "fast". @throws std::invalid_argument otherwise.
SolverKind solver_kind(const std::string& name);

struct SimulationOptions {
  SolverKind solver = SolverKind::Full;
  CDOptions cd;                           ///< time step, material, iterations, modes, clusters, leak field, gravity
  bool dynamics = true;                   ///< false: the rig alone (u_c = 0), e.g. to bake the rig's own motion
  bool monitor = true;                    ///< per step: divergence check, constraint residual, kinetic energy
                                          ///< (false: advance is the solver step alone, for benchmarks)
  double divergence_extent_ratio = 10.0;  ///< see DivergenceMonitor
  double divergence_energy_ratio = 1e4;
  /// Fast solver: the leak field, modes and clusters of an earlier precompute of the same mesh,
  /// rig and settings (FastCD::subspace, e.g. from a precompute cache); null computes them.
  std::shared_ptr<const FastCDSubspace> fast_subspace;
};

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

  /// One time step (dt) to rig pose p_next (#p): the rig moves, the solver steps the
  /// complementary motion, velocities follow by finite differences, and (monitor on) the step
  /// is checked for divergence and measured.
  /// @throws std::invalid_argument for a pose of the wrong size or with NaN/Inf;
  ///         std::runtime_error "the simulation diverged at step N: ..." on divergence (the
  ///         state is that of the diverged step).
  void advance(const Eigen::Ref<const VectorXd>& p_next);
  /// Back to the rest pose, at rest; statistics cleared.
  void reset();

  // ---- state (per-vertex quantities are #V x dim)
  MatrixXd positions() const;                      ///< x_rig(p) + u_c
  MatrixXd rig_positions() const;                  ///< x_rig(p)
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
  const SimulationStats& stats() const { return stats_; }
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
  const FullCD* full() const { return options_.solver == SolverKind::Full ? &full_ : nullptr; }
  const FastCD* fast() const { return options_.solver == SolverKind::Fast ? &fast_ : nullptr; }
  const ComplementarityConstraint& constraint() const;  ///< the current frame's C = J(p)^T M D
  const VectorXd& D() const;                            ///< #V momentum-leak field
  LeakFieldKind leak_field_used() const;                ///< the field D is (options' kind, or Centroid)
  double precompute_seconds() const { return precompute_s_; }
  /// Bytes held: the solver, the state and the workspace.
  std::size_t memory_bytes() const;

 private:
  void build(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T);
  const VectorXd& uc() const;         ///< u_c (#V*dim), lifted on demand for the fast solver
  const VectorXd& uc_dot() const;     ///< its velocity
  const VectorXd& x_rig() const;      ///< rig positions x(p) now (#V*dim), evaluated on demand
  const VectorXd& x_rig_dot() const;  ///< (x(p) - x(p_prev)) / dt, on demand
  /// The cause of a rig jump of `jump` in the last step, in words ("handle 3 of 5 ... moves 2.1").
  std::string describe_jump(double jump) const;

  SimulationOptions options_;
  std::shared_ptr<const Rig> rig_;
  Index dim_ = 0, n_ = 0;
  FullCD full_;
  FastCD fast_;
  CDState state_;
  FullCD::Workspace full_ws_;
  FastCD::Workspace fast_ws_;
  // Rig positions are evaluated only when something reads them (positions(), the monitor, a
  // rig that is not a LinearRig in full order): a fast step then touches nothing of mesh size.
  VectorXd p_prev_;                                  ///< the pose before the last step
  mutable VectorXd x_rig_, x_rig_prev_, x_rig_dot_;  ///< x(p), x(p_prev), their difference / dt
  mutable bool rig_current_ = false, prev_current_ = false, rig_dot_current_ = false;
  VectorXd x_next_;               ///< scratch: x(p_next)
  mutable VectorXd uc_, uc_dot_;  ///< lifted u_c and velocity (fast solver)
  mutable bool lifted_ = false;
  std::optional<DivergenceMonitor> monitor_;
  bool linear_rig_ = true;        ///< a LinearRig: full order steps in parameters
  double C_norm_ = 0.0;           ///< ||C||_F of the current constraint
  double residual_floor_ = 0.0;   ///< 1e-8 ||X||: the smallest ||u_c|| residual() divides by
  double extent_ = 0.0;           ///< the rest mesh's size (largest bounding-box side)
  double stiffness_ratio_ = 0.0;  ///< a typical element's stiffness over its mass / dt^2
  VectorXd x_rig_rest_;           ///< x(p0), for the travel statistics
  VectorXi boundary_;             ///< the boundary\'s vertices (the travel statistics\' vertices)
  MatrixXd corners_;              ///< the rest bounding box's 2^dim corners (rows), to measure handle jumps
  VectorXd Cu_;                   ///< scratch: C u_c
  double precompute_s_ = 0.0;
  FrameStats last_;
  SimulationStats stats_;
};

}  // namespace fastcd
