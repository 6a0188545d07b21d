#include "fastcd/cd/divergence.hpp"

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
  FASTCD_CHECK(extent > 0 && max_extent_ratio > 0 && energy_ratio > 0,
               "DivergenceMonitor: extent and ratios must be > 0, got ", extent, ", ", max_extent_ratio, ", ",
               energy_ratio);
}

void DivergenceMonitor::check(long step, const Eigen::Ref<const VectorXd>& x_rig_dot,
                              const Eigen::Ref<const VectorXd>& uc, const Eigen::Ref<const VectorXd>& uc_dot) {
  const Index n = m_.size();
  FASTCD_CHECK(x_rig_dot.size() == n && uc.size() == n && uc_dot.size() == n, "DivergenceMonitor::check: expected ", n,
               " entries, got ", x_rig_dot.size(), ", ", uc.size(), ", ", uc_dot.size());
  char advice[160];
  std::snprintf(advice, sizeof advice, "use a smaller time step (dt = %g now) or a stiffer material (YM = %g now)", h_,
                ym_);
  auto fail = [&](const std::string& what) {
    throw std::runtime_error("the simulation diverged at step " + std::to_string(step) + ": " + what + " — " + advice);
  };
  if (!uc.allFinite() || !uc_dot.allFinite()) fail("the complementary displacement is NaN or infinite");
  const double kin_rig = 0.5 * x_rig_dot.cwiseAbs2().dot(m_);
  const double kin = 0.5 * uc_dot.cwiseAbs2().dot(m_);
  max_rig_kinetic_ = std::max(max_rig_kinetic_, kin_rig);
  last_kinetic_ = kin;
  max_kinetic_ = std::max(max_kinetic_, kin);
  const double umax = uc.cwiseAbs().maxCoeff();
  if (umax > max_extent_ratio_ * extent_) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "a vertex moved %.3g away from the rig, %.0f times the mesh size", umax,
                  umax / extent_);
    fail(buf);
  }
  const double reference = std::max(max_rig_kinetic_, energy_floor_);
  if (kin > energy_ratio_ * reference && kin > 1e-12) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "the complementary kinetic energy %.3g exceeds %.0e times what the rig and external forces supply "
                  "(%.3g)",
                  kin, energy_ratio_, reference);
    fail(buf);
  }
}

}  // namespace fastcd
