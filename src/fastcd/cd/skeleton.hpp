#pragma once
// Skeletons and handle animations: forward kinematics producing per-handle affine maps, and
// their packing into LBS rig parameters p (column-major vec([A | t]) per handle).
#include <Eigen/Geometry>
#include <vector>

#include "fastcd/common/types.hpp"

namespace fastcd {

/// Parent bone of each bone: the bone whose tip BE(q, 1) is this bone's base BE(b, 0), or -1.
/// @throws std::invalid_argument if BE is not #B x 2 or a bone has two parents.
VectorXi bone_parents(const Eigen::Ref<const MatrixXi>& BE);

/// Packs per-handle d x (d+1) affine maps [A | t] into rig parameters p (lbs_jacobian layout).
VectorXd pack_affine_pose(const std::vector<MatrixXd>& A);

/// Identity pose for `handles` handles in dimension d.
VectorXd identity_pose(Index handles, Index d);

/// Rotation by `theta` radians about point c (2D), as a 2 x 3 affine map.
Eigen::Matrix<double, 2, 3> rotation_about_2d(double theta, const Eigen::Vector2d& c);

/// 2D bone forward kinematics (the 2020 MATLAB release): T_b = T_parent * rot(theta_b about the
/// bone's base joint); roots are then translated by `root_offset` (#B x 2).
/// @param C  #joints x 2, BE #B x 2, P from bone_parents, theta_deg #B angles in degrees.
std::vector<MatrixXd> forward_kinematics_2d(const Eigen::Ref<const MatrixXd>& C, const Eigen::Ref<const MatrixXi>& BE,
                                            const Eigen::Ref<const VectorXi>& P,
                                            const Eigen::Ref<const VectorXd>& theta_deg,
                                            const Eigen::Ref<const MatrixXd>& root_offset);

/// 3D bone forward kinematics (libigl's convention, used by the 2020 C++ release): relative
/// rotations dQ and translations dT per bone; bone b rotates about its base joint r:
/// root: Q = dQ, t = r - dQ r + dT; child: Q = Q_p dQ, t = t_p - Q r + Q_p (r + dT).
std::vector<MatrixXd> forward_kinematics_3d(const Eigen::Ref<const MatrixXd>& C, const Eigen::Ref<const MatrixXi>& BE,
                                            const Eigen::Ref<const VectorXi>& P,
                                            const std::vector<Eigen::Quaterniond>& dQ,
                                            const std::vector<Eigen::Vector3d>& dT);

/// Rotation from Euler angles (radians) about the columns of `axes`: R = Rz' Ry' Rx' with the
/// axes taken from `axes` (identity: world z, y, x), the C++ release's convention.
Eigen::Quaterniond euler_about_axes(const Eigen::Vector3d& euler,
                                    const Eigen::Matrix3d& axes = Eigen::Matrix3d::Identity());

/// Re-expresses an affine map acting on file coordinates as one acting on normalised
/// coordinates X_n = (X - center) / scale: [A | (A c + t - c) / scale].
MatrixXd normalize_affine(const Eigen::Ref<const MatrixXd>& At, const Eigen::Ref<const VectorXd>& center, double scale);

namespace detail {
/// The bones in an order where every parent precedes its children (P from bone_parents),
/// computed without recursion. @throws std::invalid_argument for a cycle or a bad parent.
std::vector<Index> parents_first_order(const Eigen::Ref<const VectorXi>& P);
}  // namespace detail

}  // namespace fastcd
