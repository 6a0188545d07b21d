#pragma once
// The global-step seam of both complementary-dynamics solvers: an optional hook, called once per
// local/global iteration, that adds a generalized force to the global step's right-hand side (a
// collider's contact force, an interaction force, ...), with the step's prefactored solve at hand.
//
// Every iteration of FullCD and FastCD ends in one linear solve, H x = b: the local step fixes
// the rotations, b collects inertia, rig, gravity and the rotated elastic terms, and H is the
// constant, prefactored matrix (full order: H = L + M / h^2 under the constraint C u = 0, solved
// through H's factor and a Schur complement; fast: Hr = B^T L B + B^T M B / h^2, m x m). A hook
// sees that solve's result x_free = H^{-1} b and may add a force f to b; the iteration then goes
// on from x = H^{-1} (b + f) = x_free + H^{-1} f. Because the solve is linear, this is exact
// (not a second iteration): with f a constant the step equals the step of the system whose
// right-hand side includes f, e.g. gravity's M g (full) or B^T M g (fast).
//
// The contact scheme this is made for (docs: viewer-contact-research, Part B3): an implicit
// one-sided penalty on an active set A frozen per global step, x = x_free - H^{-1} U_A lambda with
// lambda from a small dense system on the Delassus matrix U^T H^{-1} U (precomputed with the
// solvers' `solve_global`), which is f = -U_A lambda. In the fast solver U = (S B)^T n (rows of
// the subspace at the contact samples), so the force and the solve are in subspace coordinates
// and never touch the mesh; in the full solver the solve is the constrained one, so a contact
// force's rig part goes to the constraint's multipliers and C u = 0 still holds.
#include "fastcd/common/types.hpp"

namespace fastcd {

/// What a GlobalStepHook sees in one global step. Coordinates are the solver's state: z
/// (m = FastCD::state_dim()) in the fast solver, u_c (#V*dim, vertex-interleaved) in full order.
class GlobalStepContext {
 public:
  virtual ~GlobalStepContext() = default;
  /// 0-based iteration of the current step (0: the first global step of a time step, where a
  /// hook refreshes what it keeps per step, e.g. a contact active set).
  int iteration() const { return iteration_; }
  /// Entries of every vector here: the solver's state dimension.
  Index size() const { return size_; }
  /// The iterate the local step just used (its rotations): the step's starting state at
  /// iteration 0, the previous global step's (corrected) result afterwards.
  Eigen::Map<const VectorXd> iterate() const { return {iterate_, size_}; }
  /// x_free = H^{-1} b: this global step's result before any correction.
  Eigen::Map<const VectorXd> solution() const { return {solution_, size_}; }
  /// f, zero on entry: the generalized force the hook adds to b (in the units of b: a force, the
  /// negative gradient of an added energy, such as B^T M g for gravity in the fast solver). When
  /// it stays zero the step is exactly (bit for bit) the step without a hook.
  Eigen::Map<VectorXd> force() { return {force_, size_}; }
  /// out = H^{-1} v with the global step's prefactored matrix (fast: Hr; full: the constrained
  /// solve, so C out = 0). Allocation-free; v and out may be the same vector.
  virtual void solve(const Eigen::Ref<const VectorXd>& v, Eigen::Ref<VectorXd> out) const = 0;

 protected:
  int iteration_ = 0;
  Index size_ = 0;
  const double* iterate_ = nullptr;
  const double* solution_ = nullptr;
  double* force_ = nullptr;
};

/// A correction of the global step (see above). Given to a solver through its Workspace's
/// `hook` (not owned); called once per iteration of every step that workspace runs, in both
/// iteration forms and both precisions of the fast solver, and in the full solver. A hook keeps
/// whatever it needs per step (the rig pose, colliders' frames) itself, set before the step.
class GlobalStepHook {
 public:
  virtual ~GlobalStepHook() = default;
  /// Called after the global step's solve, before its result is used; may add to ctx.force().
  virtual void global_step(GlobalStepContext& ctx) = 0;
};

}  // namespace fastcd
