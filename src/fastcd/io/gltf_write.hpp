#pragma once
// Secondary motion baked back into the user's glTF file.
//
// The output is a copy of the input .glb/.gltf as one self-contained .glb (every buffer merged
// into the single binary chunk, external and data-URI images embedded), with the skin, the
// skeleton, materials, textures, extensions and extras untouched, and:
// - the baked clip resampled at the simulation rate (one LINEAR key per frame for every channel
//   it animates; quaternions normalised and sign-continuous), so players, Blender and fastcd
//   agree on the rig between keys;
// - the secondary motion as morph targets of the skinned mesh in *rest space*: glTF applies
//   morph displacements before skinning, and LBS is affine in the vertex, so a target
//   delta = (sum_j w_j L_j(t))^-1 u(t) (L_j the 3x3 part of joint j's skinning matrix) lands
//   skinned exactly on the simulated displacement u (geometry/rest_space.hpp computes them);
// - one `weights` channel per mesh node in the baked clip's animation (LINEAR).
// Encodings: "frames" (target k = frame k, one-hot weights: at most two targets are non-zero at
// any time, safe for clients that honour only the 8 largest weights) or "pca" (K targets from
// a PCA of the deltas, K chosen by an error bound, plus a constant offset target, every weight
// kept in [0, 1] because Blender clamps negative shape-key values).
#include <string>
#include <vector>

#include "fastcd/common/defaults.hpp"
#include "fastcd/common/types.hpp"
#include "fastcd/io/gltf_io.hpp"

namespace fastcd {

struct GltfBakeOptions {
  std::string encoding = defaults::glb_encoding;  ///< "frames" or "pca"
  /// "pca": the largest position error allowed, relative to the bind-pose bounding box diagonal.
  double pca_tolerance = defaults::pca_tolerance;
  int pca_max_targets = 64;  ///< "pca": at most this many targets (plus the offset target)
};

struct GltfBakeReport {
  std::string encoding;
  int frames = 0;
  int targets = 0;                ///< morph targets added, summed over the baked skinned meshes
  std::vector<int> mesh_targets;  ///< per skinned mesh (GltfCharacter::meshes): targets on each of its primitives
  double max_error = 0;           ///< largest position error of the encoding, file units (before float32)
  double max_error_relative = 0;  ///< ... over its skinned mesh's bind-pose bounding box diagonal
  std::size_t bytes = 0;          ///< size of the written file
};

/// Writes `out_path` (.glb, atomically): the file c was read from with clip `clip` resampled at
/// t_k = k dt (k < the number of frames) and, for every skinned mesh m (c.meshes order),
/// deltas[m][k] (#V_m x 3, rest space, file units) added as its secondary motion; an empty
/// deltas[m] leaves mesh m as it is. Each baked mesh has its own targets and its own weights
/// channel per node, in the baked clip's animation.
/// @throws std::invalid_argument for bad arguments (one entry per skinned mesh, equal frame
///         counts, sizes, non-finite deltas, dt, encoding) and files the bake cannot extend: a
///         mesh that already has morph targets, a mesh used by several nodes, a POSITION
///         accessor whose count differs from the mesh's vertices.
/// @throws std::runtime_error if the input cannot be re-read or the output cannot be written.
GltfBakeReport write_gltf_bake(const GltfCharacter& c, int clip, double dt,
                               const std::vector<std::vector<MatrixXd>>& deltas, const std::string& out_path,
                               const GltfBakeOptions& options = {});

}  // namespace fastcd
