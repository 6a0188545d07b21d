#pragma once
// Detecting a simulation that went wrong, one step at a time, with what to change.
#include <string>

#include "fastcd/common/types.hpp"

namespace fastcd {

/// What a step measured, as the divergence check reads it: computed from the full vectors (the
/// full solver, DivergenceMonitor::check's vector form) or in reduced coordinates (the fast
/// solver: nothing of the mesh's size).
struct StepMeasures {
  bool finite = true;               ///< u_c and its velocity are finite
  double kinetic_energy = 0.0;      ///< 1/2 u_c_dot^T M u_c_dot
  double rig_kinetic_energy = 0.0;  ///< 1/2 x_rig_dot^T M x_rig_dot
  /// max |u_c| (the largest coordinate), or, when `max_displacement_exact` is false, an upper
  /// bound of it: enough when the bound is within `DivergenceMonitor::max_displacement()`.
  double max_displacement = 0.0;
  bool max_displacement_exact = true;
};

/// Watches a roll-out and throws as soon as a step diverges:
/// - any non-finite entry in u_c or its velocity;
/// - a complementary displacement larger than `max_extent_ratio` times the mesh's size (the
///   mesh flew apart);
/// - complementary kinetic energy above `energy_ratio` times a reference that is aware of the
///   scene's scale: the larger of the largest rig kinetic energy seen so far, `energy_floor`
///   (pass the work gravity can do: total mass * |g| * extent) and the energy of motion that is
///   tiny for this mesh — every vertex moving 1e-3 of the mesh size per step,
///   1/2 m_total (1e-3 extent / dt)^2. So rounding noise while the rig holds still never fires.
/// The message names the step, what was seen and its likely cause: energy appearing while the
/// rig has not moved points at the input (weights that do not reproduce the rest shape, a rest
/// pose off the mesh), energy growing under a moving rig at the time step or the material.
class DivergenceMonitor {
 public:
  /// @param Mv      #V*dim diagonal lumped mass.
  /// @param extent  the mesh's size (largest bounding-box side).
  /// @param h, ym   the time step and Young's modulus, quoted in the advice (h > 0).
  DivergenceMonitor(const SparseMatrix& Mv, double extent, double h, double ym, double energy_floor = 0.0,
                    double max_extent_ratio = 10.0, double energy_ratio = 1e4);

  /// Checks step `step` (1-based): rig velocity x_rig_dot, u_c and its velocity (#V*dim each).
  /// @throws std::runtime_error "the simulation diverged at step N: ... — ..." on divergence.
  void check(long step, const Eigen::Ref<const VectorXd>& x_rig_dot, const Eigen::Ref<const VectorXd>& uc,
             const Eigen::Ref<const VectorXd>& uc_dot);
  /// The same check on what the step measured: records its energies, and returns what diverged
  /// in words ("a vertex moved 12 times the mesh's size away from the rig"), or "" when nothing
  /// did. A measure whose max_displacement is only a bound above max_displacement() is refused
  /// (the caller measures it exactly first).
  std::string diverged(const StepMeasures& m);
  /// Throws "the simulation diverged at step N: <what> — <advice>" (std::runtime_error), the
  /// advice from what was measured so far (a rig that has not moved, a jump, the material).
  [[noreturn]] void fail(long step, const std::string& what) const;
  /// The largest |u_c| a step may reach: max_extent_ratio times the mesh's size.
  double max_displacement() const { return max_extent_ratio_ * extent_; }
  /// 1/2 v^T M v for a #V*dim velocity.
  double kinetic_energy(const Eigen::Ref<const VectorXd>& v) const;

  /// Records that at step `step` the rig moved the mesh by `jump` in one step (the largest
  /// coordinate change), `what` naming the cause in words ("handle 3 of 5 (counted from 1) moves
  /// 2.1 times the mesh's size"); the
  /// largest jump at or above half the mesh's size makes a later divergence's advice point at a
  /// jump in the animation instead of the material.
  void note_rig_jump(long step, double jump, const std::string& what);
  /// The material is far stiffer than its inertia at this time step (the stiffness over the mass
  /// per dt^2 of an element): a divergence's advice then does not suggest a stiffer material.
  void set_stiff(bool stiff) { stiff_ = stiff; }
  /// The largest rig jump noted, in words ("at step 12 handle 2 of 5 (counted from 1) moves 3.1
  /// times the mesh's size in one step"), or "" when none reached half the mesh's size.
  std::string rig_jump() const;

  /// Forgets the steps seen so far (a new roll-out).
  void reset() {
    max_rig_kinetic_ = max_kinetic_ = last_kinetic_ = jump_ = 0.0;
    jump_step_ = 0;
    jump_what_.clear();
  }

  double max_rig_kinetic() const { return max_rig_kinetic_; }
  double max_kinetic() const { return max_kinetic_; }  ///< largest complementary kinetic energy seen
  double last_kinetic() const { return last_kinetic_; }

 private:
  VectorXd m_;
  double extent_, h_, ym_, energy_floor_, max_extent_ratio_, energy_ratio_;
  double tiny_energy_ = 0.0;  ///< 1/2 m_total (1e-3 extent / h)^2
  double max_rig_kinetic_ = 0.0, max_kinetic_ = 0.0, last_kinetic_ = 0.0;
  double jump_ = 0.0;  ///< the largest rig jump noted at or above half the extent, at jump_step_
  long jump_step_ = 0;
  std::string jump_what_;
  bool stiff_ = false;
};

}  // namespace fastcd
