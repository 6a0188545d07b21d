#pragma once
// lbs_rest_space_displacements: a displacement of skinned vertices taken back to rest space, so
// that adding it to the rest positions *before* linear blend skinning lands exactly on it after.
// LBS is affine in the rest position, x = sum_j w_j (L_j X + t_j), so X + d skins to x + u for
// d = (sum_j w_j L_j)^-1 u. glTF morph targets (io/gltf_write), the rest-space point caches of a
// glTF bake (scene/gltf_scene) and the Blender add-on's Mesh Cache (blender/fastcd_blender) all
// use this one function.
#include <vector>

#include "fastcd/common/types.hpp"

namespace fastcd {

/// For frame k and vertex v: d = (sum_j W(v, j) L_j)^-1 U[k].row(v), L_j the linear part of
/// joint j in poses[k] (12 numbers per joint: the column-major 3x4 [L_j | t_j]; joints of zero
/// weight are skipped).
/// @param W  #V x #joints skin weights.
/// @param poses  per frame, 12 * #joints numbers.
/// @param U  per frame, #V x 3 displacements after skinning.
/// @param worst_condition  if not null: the largest condition number of a blended 3x3 (at least 1).
/// @return per frame, #V x 3 rest-space displacements.
/// @throws std::invalid_argument for mismatched sizes, non-finite displacements, or a vertex
///         whose blended matrix is singular (condition >= 1e8: the rig collapses it), named by
///         frame and vertex.
std::vector<MatrixXd> lbs_rest_space_displacements(const Eigen::Ref<const MatrixXd>& W,
                                                   const std::vector<VectorXd>& poses, const std::vector<MatrixXd>& U,
                                                   double* worst_condition = nullptr);

}  // namespace fastcd
