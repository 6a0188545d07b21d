#pragma once
// The rig's positions over a roll-out's current step, evaluated only when something reads them.
#include <cstddef>
#include <memory>
#include <optional>

#include "fastcd/cd/rig.hpp"

namespace fastcd {

/// The rig's positions at the current pose p and at the pose before the last step, p_prev, and
/// their velocity (x(p) - x(p_prev)) / dt, each evaluated when first read and kept until the
/// pose changes: a step that reads none of them (the fast solver's) touches nothing of the
/// mesh's size, and positions read after a step become the previous ones of the next step for
/// free. A LinearRig whose J is J_s (x) I_dim (LBS, point handles, the affine handle, cages) is
/// evaluated through J_s, a copy taken at construction (the solvers copy J too), four vertices
/// at a time: x_v = sum_c J_s(v, c) p_c over the columns the four use, in ascending order, as
/// J p sums them (an entry a vertex lacks adds an exact zero).
class RigMotion {
 public:
  RigMotion() = default;
  /// @param dt the time step the velocity divides by (> 0).
  RigMotion(std::shared_ptr<const Rig> rig, double dt);

  /// At pose p (#p), at rest: p_prev = p.
  void reset(const Eigen::Ref<const VectorXd>& p);
  /// x(p_next) (#V*dim), kept to become x() after `move_to(p_next)` (a step that reads the
  /// next positions, e.g. the full solver with a nonlinear rig).
  const VectorXd& next(const Eigen::Ref<const VectorXd>& p_next);
  /// What `next` evaluated last (until `move_to`).
  const VectorXd& x_next() const { return x_next_; }
  /// The pose becomes p_next: x(p), when it was read, becomes x(p_prev) (no evaluation);
  /// x(p_next), when `next` read it, becomes x(p).
  void move_to(const Eigen::Ref<const VectorXd>& p_next);

  const VectorXd& p() const { return p_; }
  const VectorXd& p_prev() const { return p_prev_; }
  const VectorXd& x() const;       ///< x(p) (#V*dim)
  const VectorXd& x_prev() const;  ///< x(p_prev)
  const VectorXd& x_dot() const;   ///< (x(p) - x(p_prev)) / dt
  /// x(q) into x (#V*dim) for any pose q: through J_s when the rig has that form.
  void evaluate(const Eigen::Ref<const VectorXd>& q, Eigen::Ref<VectorXd> x) const;

  const Rig& rig() const { return *rig_; }
  /// The rig is a LinearRig (x = J p with the J it had at construction).
  bool linear_rig() const { return J_ != nullptr; }
  /// Bytes held (the positions kept, J_s).
  std::size_t memory_bytes() const;

  struct Blocks;  ///< J_s in blocks of four vertices (opaque; rig_motion.cpp)

 private:
  std::shared_ptr<const Rig> rig_;
  double dt_ = 1.0;
  Index dim_ = 0;
  const SparseMatrix* J_ = nullptr;       ///< the LinearRig's J (null for any other rig)
  std::shared_ptr<const Blocks> blocks_;  ///< J = J_s (x) I_dim, when it is; shared by copies
  VectorXd p_, p_prev_;
  mutable VectorXd x_, x_prev_, x_dot_, x_next_;
  mutable bool x_current_ = false, prev_current_ = false, dot_current_ = false;
  bool next_current_ = false;
};

}  // namespace fastcd
