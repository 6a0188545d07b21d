#pragma once
// Rigs for complementary dynamics: the LBS Jacobian J (x = J p) and its rest pose.
#include "fastcd/common/types.hpp"

namespace fastcd {

struct Rig {
  SparseMatrix J;  ///< #V*dim x #p LBS Jacobian (see lbs_jacobian)
  VectorXd p0;     ///< #p rest pose: the M-weighted projection of X onto span(J)
};

/// The seed's rig_rest: p0 = argmin_p ||J p - x||_M, x = flatten(X).
/// @throws std::runtime_error when J^T M J is singular (J has dependent columns).
VectorXd rig_rest(const SparseMatrix& J, const SparseMatrix& Mv, const Eigen::Ref<const MatrixXd>& X);

/// LBS rig from per-vertex bone weights W (#V x #bones): J = lbs_jacobian(X, W), p0 = rig_rest.
Rig lbs_rig(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXd>& W, const SparseMatrix& Mv);

/// The seed's rig: one global affine handle (W = 1), 6 parameters in 2D, 12 in 3D.
Rig affine_handle_rig(const Eigen::Ref<const MatrixXd>& X, const SparseMatrix& Mv);

/// The seed's metronome animation handle(p0, i): p0 with its x-translation (entry #p - dim of
/// the last bone) set to amp * sin(2 pi i / period).
VectorXd metronome_pose(const Eigen::Ref<const VectorXd>& p0, Index dim, int i, double amp = 3.0,
                        double period = 80.0);

}  // namespace fastcd
