#include "fastcd/cd/divergence.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "fastcd/common/check.hpp"

namespace fastcd {

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

void DivergenceMonitor::check(long step, const Eigen::Ref<const VectorXd>& x_rig_dot,
                              const Eigen::Ref<const VectorXd>& uc, const Eigen::Ref<const VectorXd>& uc_dot) {
  const Index n = m_.size();
  FASTCD_CHECK(x_rig_dot.size() == n && uc.size() == n && uc_dot.size() == n, "DivergenceMonitor::check: expected ", n,
               " entries, got ", x_rig_dot.size(), ", ", uc.size(), ", ", uc_dot.size());
  char material[160];
  std::snprintf(material, sizeof material, "use a smaller time step (dt = %g now) or a stiffer material (YM = %g now)",
                h_, ym_);
  auto fail = [&](const std::string& what, const std::string& advice) {
    throw std::runtime_error("the simulation diverged at step " + std::to_string(step) + ": " + what + " — " + advice);
  };
  const char* at_rest =
      "the rig has not moved yet, so the input is the likely cause: check that the weights reproduce the rest "
      "shape (each vertex's weights summing to 1) and that the rig's rest pose matches the mesh";
  const double kin_rig = 0.5 * x_rig_dot.cwiseAbs2().dot(m_);
  max_rig_kinetic_ = std::max(max_rig_kinetic_, kin_rig);
  const bool rig_still = !(max_rig_kinetic_ > 0);
  if (!uc.allFinite() || !uc_dot.allFinite())
    fail("the complementary displacement is NaN or infinite", rig_still ? at_rest : material);
  const double kin = 0.5 * uc_dot.cwiseAbs2().dot(m_);
  last_kinetic_ = kin;
  max_kinetic_ = std::max(max_kinetic_, kin);
  const double umax = uc.cwiseAbs().maxCoeff();
  if (umax > max_extent_ratio_ * extent_) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "a vertex moved %.3g away from the rig, %.0f times the mesh size", umax,
                  umax / extent_);
    fail(buf, rig_still ? at_rest : material);
  }
  const double reference = std::max({max_rig_kinetic_, energy_floor_, tiny_energy_});
  if (kin > energy_ratio_ * reference) {
    char buf[240];
    std::snprintf(buf, sizeof buf,
                  "the complementary kinetic energy %.3g exceeds %.0e times what the rig and external forces supply "
                  "(%.3g, or the energy of motion tiny for this mesh)",
                  kin, energy_ratio_, reference);
    fail(buf, rig_still ? at_rest : material);
  }
}

}  // namespace fastcd
