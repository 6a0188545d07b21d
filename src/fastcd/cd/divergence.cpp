#include "fastcd/cd/divergence.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "fastcd/common/check.hpp"

namespace fastcd {

namespace {

/// A measured number with three significant digits ("2.35", "1.2e+12"): never 300 of them.
std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

}  // namespace

DivergenceMonitor::DivergenceMonitor(const SparseMatrix& Mv, double extent, double h, double ym, double energy_floor,
                                     double max_extent_ratio, double energy_ratio)
    : m_(Mv.diagonal()),
      extent_(extent),
      h_(h),
      ym_(ym),
      energy_floor_(energy_floor),
      max_extent_ratio_(max_extent_ratio),
      energy_ratio_(energy_ratio) {
  FASTCD_CHECK(Mv.rows() == Mv.cols(), "DivergenceMonitor: the mass matrix must be square, got ", Mv.rows(), " x ",
               Mv.cols());
  FASTCD_CHECK(extent > 0 && h > 0 && max_extent_ratio > 0 && energy_ratio > 0,
               "DivergenceMonitor: extent, h and ratios must be > 0, got ", extent, ", ", h, ", ", max_extent_ratio,
               ", ", energy_ratio);
  // Every vertex moving 1e-3 of the mesh size per step (m_ holds each vertex's mass once per
  // coordinate: a third of its sum is at most the total mass in 3D, half in 2D).
  const double v_tiny = 1e-3 * extent / h;
  tiny_energy_ = 0.5 * (m_.sum() / 3.0) * v_tiny * v_tiny;
}

void DivergenceMonitor::note_rig_jump(long step, double jump, const std::string& what) {
  if (!(jump >= 0.5 * extent_) || !(jump > jump_)) return;
  jump_ = jump;
  jump_step_ = step;
  jump_what_ = what;
}

std::string DivergenceMonitor::rig_jump() const {
  return jump_step_ > 0 ? "at step " + std::to_string(jump_step_) + " " + jump_what_ + " in one step" : std::string();
}

double DivergenceMonitor::kinetic_energy(const Eigen::Ref<const VectorXd>& v) const {
  return 0.5 * v.cwiseAbs2().dot(m_);
}

void DivergenceMonitor::check(long step, const Eigen::Ref<const VectorXd>& x_rig_dot,
                              const Eigen::Ref<const VectorXd>& uc, const Eigen::Ref<const VectorXd>& uc_dot) {
  const Index n = m_.size();
  FASTCD_CHECK(x_rig_dot.size() == n && uc.size() == n && uc_dot.size() == n, "DivergenceMonitor::check: expected ", n,
               " entries, got ", x_rig_dot.size(), ", ", uc.size(), ", ", uc_dot.size());
  StepMeasures m;
  m.rig_kinetic_energy = kinetic_energy(x_rig_dot);
  m.finite = uc.allFinite() && uc_dot.allFinite();
  if (m.finite) {
    m.kinetic_energy = kinetic_energy(uc_dot);
    m.max_displacement = uc.cwiseAbs().maxCoeff();
  }
  const std::string what = diverged(m);
  if (!what.empty()) fail(step, what);
}

std::string DivergenceMonitor::diverged(const StepMeasures& m) {
  max_rig_kinetic_ = std::max(max_rig_kinetic_, m.rig_kinetic_energy);
  if (!m.finite) return "the complementary displacement is NaN or infinite";
  FASTCD_CHECK(m.max_displacement_exact || m.max_displacement <= max_displacement(),
               "DivergenceMonitor: a bound of max |u_c| above the limit (", m.max_displacement,
               "): measure it exactly");
  const double kin = m.kinetic_energy;
  last_kinetic_ = kin;
  max_kinetic_ = std::max(max_kinetic_, kin);
  const double umax = m.max_displacement;
  if (umax > max_displacement())
    return "a vertex moved " + number(umax / extent_) + " times the mesh's size away from the rig";
  const double reference = std::max({max_rig_kinetic_, energy_floor_, tiny_energy_});
  if (kin > energy_ratio_ * reference)
    return "the complementary kinetic energy " + number(kin) + " exceeds " + number(energy_ratio_) +
           " times what the rig and external forces supply (" + number(reference) +
           ", or the energy of motion tiny for this mesh)";
  return {};
}

void DivergenceMonitor::fail(long step, const std::string& what) const {
  // The advice names the likely cause from what was measured: a rig that has not moved points at
  // the input, a jump of the rig at the animation, otherwise the time step or the material.
  std::string advice;
  if (!(max_rig_kinetic_ > 0))
    advice =
        "the rig has not moved yet, so the input is the likely cause: check that the weights reproduce the rest "
        "shape (each vertex's weights summing to 1) and that the rig's rest pose matches the mesh";
  else if (jump_step_ > 0)
    advice = "the animation jumps: " + rig_jump() +
             " (a teleport, e.g. a cut or a missing key). No material follows a jump like that: smooth the "
             "animation there, or bake the parts before and after it separately";
  else if (stiff_)
    advice = "the material is already very stiff for its inertia (YM = " + number(ym_) + ", dt = " + number(h_) +
             "), so a stiffer one will not help: use a smaller time step, and check the animation for sudden "
             "jumps and the weights for vertices the rig tears apart";
  else
    advice =
        "use a smaller time step (dt = " + number(h_) + " now) or a stiffer material (YM = " + number(ym_) + " now)";
  throw std::runtime_error("the simulation diverged at step " + std::to_string(step) + ": " + what + " — " + advice);
}

}  // namespace fastcd
