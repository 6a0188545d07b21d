#pragma once
// Handle-animation text files of the Complementary Dynamics releases (2020): the MATLAB 2D
// release's `*_anim.txt` (bones and point handles) and the C++ 3D release's bone and point
// animations. Raw data only; turning it into rig poses is `load_scene`'s job.
#include <vector>

#include "fastcd/common/types.hpp"

namespace fastcd {

/// 2D: header "frames handles", then frames + 1 rows (row 0 = rest) of (x, y, angle in degrees)
/// per handle (bone or point handle).
struct Animation2D {
  MatrixXd rest;                 ///< #handles x 3
  std::vector<MatrixXd> frames;  ///< each #handles x 3
};
/// @throws std::runtime_error naming the file and line for malformed or truncated files.
Animation2D read_animation_2d(const std::string& path);

/// 3D bones: header "bones frames"; the root's rest translation (3) and rest Euler angles (3,
/// degrees); each bone's rest Euler angles (3); then per frame the root rotation (3), the
/// root translation (3) and each bone's Euler angles (3).
struct BoneAnimation3D {
  Eigen::Vector3d root_rest_translation, root_rest_euler;
  MatrixXd bone_rest_euler;                    ///< #bones x 3 (degrees)
  std::vector<Eigen::Vector3d> root_rotation;  ///< per frame (degrees)
  std::vector<Eigen::Vector3d> root_translation;
  std::vector<MatrixXd> bone_euler;  ///< per frame, #bones x 3 (degrees)
};
BoneAnimation3D read_bone_animation_3d(const std::string& path);

/// 3D point handles: header "handles frames"; per handle its rest translation (3) and rest
/// Euler angles (3, degrees); then per frame and handle a translation (3) and Euler angles (3).
struct PointAnimation3D {
  MatrixXd rest_translation, rest_euler;     ///< #handles x 3
  std::vector<MatrixXd> translation, euler;  ///< per frame, #handles x 3
};
PointAnimation3D read_point_animation_3d(const std::string& path);

}  // namespace fastcd
