#pragma once
// The fast solver (FastCD) behind the CDSolver face, with a monitor in reduced coordinates and
// an exact lift in skinning form.
//
// Monitor (nothing of the mesh's size per step; B = Phi (x) I_dim, Z the dim x mt view of z):
// - residual: C u_c = (C B) z with C B precomputed (a few numbers per rig parameter and mode;
//   C B = 0 up to the structural residual), ||u_c||^2 = tr(Z (Phi^T Phi) Z^T);
// - kinetic energy: 1/2 z_dot^T (B^T M B) z_dot, which is 1/2 |z_dot|^2 when the precomputed
//   B^T M B is the identity to 1e-13 / mt (the basis is M-orthonormal), else through it;
// - the rig's kinetic energy: 1/2 p_dot^T (J^T M J) p_dot (J constant);
// - max |u_c| <= max_v |Phi_v| max_a |Z_a| (Cauchy-Schwarz per vertex): the divergence check's
//   displacement bound; a Simulation lifts u_c only when that bound exceeds the limit.
//
// Lift u_c = B z, exactly (double precision) in the form that reads least memory: per vertex
// A_v = sum_k W(v, k) T_k blended from the per-mode transforms T = Craw Z^T (the skinning form
// of FastCD::lift_skinned, in double), then u_v = A_v [X_v; 1]: the weights and rest positions
// (modes + dim doubles per vertex) instead of a row of Phi (modes * (dim+1)). It equals
// FastCD::lift (Phi Z^T) up to the rounding of a sum taken in another order, and is used only
// when the precompute's Craw represents Phi to 1e-13 and its entries do not amplify rounding
// more than Phi's own (checked at construction); otherwise the lift is FastCD::lift.
#include <memory>
#include <vector>

#include "fastcd/cd/cd_solver.hpp"
#include "fastcd/cd/fast_cd.hpp"

namespace fastcd {

class FastCDSolver final : public CDSolver {
 public:
  /// fast_cd_precompute for mesh (X, T) under the linear `rig` at its rest pose.
  /// @throws std::invalid_argument for a nonlinear rig, or a linear one with x(p0) != J p0.
  FastCDSolver(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T, const Rig& rig,
               const SimulationOptions& options);
  /// @throws std::invalid_argument for a nonlinear rig (the subspace is built for one constant J).
  static void check_rig(const Rig& rig);
  /// The precompute's peak estimate (see precompute_bytes in cd_solver.hpp).
  static PrecomputeBytes precompute_bytes(const Eigen::Ref<const MatrixXi>& T, Index n, const Rig& rig,
                                          const SparseMatrix* J, const CDOptions& options);

  std::unique_ptr<CDSolver> clone() const override { return std::make_unique<FastCDSolver>(*this); }
  SolverKind kind() const override { return SolverKind::Fast; }
  const FastCD* fast() const override { return &fast_; }
  const SparseMatrix& Mv() const override { return fast_.Mv(); }
  const ComplementarityConstraint& constraint() const override { return fast_.constraint(); }
  const VectorXd& D() const override { return fast_.D(); }
  LeakFieldKind leak_field_used() const override { return fast_.leak_field_used(); }
  std::size_t memory_bytes() const override;

  CDState initial_state() const override { return fast_.initial_state(); }
  void advance(CDState& state, const Eigen::Ref<const VectorXd>& p_next, RigMotion& rig) override;
  void set_global_step_hook(GlobalStepHook* hook) override { ws_.hook = hook; }
  GlobalStepHook* global_step_hook() const override { return ws_.hook; }

  const VectorXd& lift(const VectorXd& s, VectorXd& scratch) const override;
  double kinetic_energy(const CDState& state) const override;
  double residual(const CDState& state, double floor) const override;
  StepMeasures measure(const CDState& state, const RigMotion& rig) const override;

  /// The lift in use is the skinning form (else FastCD::lift's Phi Z^T).
  bool skinning_lift() const;
  /// max_v |(Phi_raw Craw - Phi)_v| / max_v |Phi_v| (row 2-norms): how exactly Craw represents Phi.
  double skinning_representation_error() const;
  /// The mass Gram matrix B^T M B is the identity to 1e-13 / mt (the kinetic energy is then
  /// 1/2 |z_dot|^2, to 1e-13 relative).
  bool mass_orthonormal() const;
  /// max |B^T M B - I| (entries), as measured at construction.
  double mass_orthonormality_error() const;

  struct Reduced;  ///< the precomputed monitor and lift data (shared by copies; fast_cd_solver.cpp)

 private:
  FastCD fast_;
  FastCD::Workspace ws_;
  std::shared_ptr<const Reduced> r_;
  // Scratch (sized at construction): the mode transforms, C u_c, Phi^T Phi Z^T, J^T M J p_dot.
  mutable MatrixXd G_, Cu_, GZ_, Sp_;
};

}  // namespace fastcd
