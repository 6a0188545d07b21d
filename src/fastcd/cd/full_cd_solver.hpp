#pragma once
// The full-order solver (FullCD) behind the CDSolver face: any rig (a LinearRig steps in its
// parameters, any other rig in its positions, a nonlinear one with its constraint rebuilt for
// every pose), the monitor on the full vectors (u_c is the state itself).
#include "fastcd/cd/cd_solver.hpp"
#include "fastcd/cd/full_cd.hpp"

namespace fastcd {

class FullCDSolver final : public CDSolver {
 public:
  /// full_cd_precompute for mesh (X, T) under `rig` at its rest pose.
  FullCDSolver(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T, const Rig& rig,
               const SimulationOptions& options);
  /// Any rig: nothing to refuse.
  static void check_rig(const Rig&) {}
  /// The precompute's peak estimate (see precompute_bytes in cd_solver.hpp).
  static PrecomputeBytes precompute_bytes(const Eigen::Ref<const MatrixXi>& T, Index n, const Rig& rig,
                                          const SparseMatrix* J, const CDOptions& options);

  std::unique_ptr<CDSolver> clone() const override { return std::make_unique<FullCDSolver>(*this); }
  SolverKind kind() const override { return SolverKind::Full; }
  const FullCD* full() const override { return &full_; }
  const SparseMatrix& Mv() const override { return full_.Mv(); }
  const ComplementarityConstraint& constraint() const override { return full_.constraint(); }
  const VectorXd& D() const override { return full_.D(); }
  LeakFieldKind leak_field_used() const override { return full_.leak_field_used(); }
  std::size_t memory_bytes() const override;

  CDState initial_state() const override { return full_.initial_state(); }
  void reset(const RigMotion& rig) override;
  void prepare(const Eigen::Ref<const VectorXd>& p_next, RigMotion& rig) override;
  void advance(CDState& state, const Eigen::Ref<const VectorXd>& p_next, RigMotion& rig) override;
  void set_global_step_hook(GlobalStepHook* hook) override { ws_.hook = hook; }
  GlobalStepHook* global_step_hook() const override { return ws_.hook; }

  const VectorXd& lift(const VectorXd& s, VectorXd& scratch) const override;
  double kinetic_energy(const CDState& state) const override;
  double residual(const CDState& state, double floor) const override;
  StepMeasures measure(const CDState& state, const RigMotion& rig) const override;

 private:
  FullCD full_;
  FullCD::Workspace ws_;
  double dt_ = 0.0;
  bool by_positions_ = false;  ///< not a LinearRig: steps in the rig's positions (any rig)
  double C_norm_ = 0.0;        ///< ||C||_F of the current constraint
  VectorXd m_;                 ///< the lumped mass's diagonal (#V*dim)
  mutable VectorXd Cu_;        ///< scratch: C u_c
};

}  // namespace fastcd
