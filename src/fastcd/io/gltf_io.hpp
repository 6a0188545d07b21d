#pragma once
// glTF 2.0 skinned characters (.glb / .gltf): the skins, the meshes they deform, the joint
// hierarchy and the animation clips. Parsing is Debian's tinygltf; what tinygltf leaves to its
// user is done here: accessor decoding (strides, normalised integers, sparse substitution,
// accessors without a buffer view, bounds), weight sanitation, and sampling clips by the spec's
// STEP / LINEAR (slerp for rotations) / CUBICSPLINE rules (glTF 2.0 spec, Animations and
// Appendix C). Joint matrices are G(joint) * inverseBindMatrix; the skinned mesh node's own
// transform is ignored, as the spec requires (Skins: "the transform of the skinned mesh node
// MUST be ignored"), so a rig pose is a set of LBS bone transforms on the bind-space POSITIONs.
//
// Nothing here prints. Every error is a std::runtime_error "read_gltf: '<path>': <object>:
// <problem>" naming the object (accessor, mesh and primitive, node, skin, animation channel).
#include <Eigen/Core>
#include <Eigen/Geometry>
#include <string>
#include <vector>

#include "fastcd/common/types.hpp"

namespace fastcd {

/// One node of the scene graph: its parent and its rest local transform.
struct GltfNode {
  std::string name;
  int parent = -1;          ///< -1 for a root
  bool has_matrix = false;  ///< local transform given as `matrix` (cannot be animated)
  Eigen::Matrix4d matrix = Eigen::Matrix4d::Identity();
  Eigen::Vector3d translation = Eigen::Vector3d::Zero();
  Eigen::Quaterniond rotation = Eigen::Quaterniond::Identity();
  Eigen::Vector3d scale = Eigen::Vector3d::Ones();
  /// The rest local matrix: `matrix`, or T * R * S.
  Eigen::Matrix4d local() const;
};

enum class GltfInterpolation { Step, Linear, CubicSpline };
enum class GltfPath { Translation, Rotation, Scale };

/// One animated property of one node.
struct GltfChannel {
  int node = -1;
  GltfPath path = GltfPath::Translation;
  GltfInterpolation interpolation = GltfInterpolation::Linear;
  Eigen::VectorXd times;   ///< key times (s), strictly increasing, >= 0
  Eigen::MatrixXd values;  ///< one row per key (CUBICSPLINE: 3 per key: in-tangent, value, out-tangent);
                           ///< 3 columns, or 4 for rotations (quaternion x, y, z, w)
};

/// An animation clip: the channels that move nodes (morph-weight channels are not kept).
struct GltfClip {
  std::string name;  ///< the file's name, or "animation <i>" when it has none
  std::vector<GltfChannel> channels;
  double duration = 0;  ///< largest key time of any of the clip's channels
};

/// A skin: its joints (node indices) and their inverse bind matrices.
struct GltfSkin {
  std::string name;
  std::vector<int> joints;
  std::vector<Eigen::Matrix4d> inverse_bind;  ///< one per joint (identity when the file gives none)
  int skeleton = -1;                          ///< the skeleton root the file names (-1: none)
};

/// Where one primitive's vertices and triangles sit in a GltfSkinnedMesh.
struct GltfPrimitiveSpan {
  int node = -1, mesh = -1, primitive = -1;
  Index first_vertex = 0, vertices = 0;
  Index first_triangle = 0, triangles = 0;
};

/// Every mesh node deformed by one skin, its primitives concatenated in file order (nodes, then
/// primitives), as Blender's importer orders them.
struct GltfSkinnedMesh {
  int skin = -1;
  std::string name;  ///< the first mesh node's name (or its mesh's, or "skin <i>")
  std::vector<GltfPrimitiveSpan> spans;
  MatrixXd V;  ///< #V x 3 bind-space POSITION, the render vertices
  MatrixXi F;  ///< #F x 3 triangles (strips and fans converted), 0-based into V
  /// #V x #joints skin weights from every JOINTS_n / WEIGHTS_n set: negatives clamped to 0,
  /// duplicate joints merged, rows renormalised to sum to 1.
  MatrixXd W;
};

/// A glTF character as fastcd simulates it.
struct GltfCharacter {
  std::string path;
  std::vector<GltfNode> nodes;
  std::vector<GltfSkin> skins;
  std::vector<GltfSkinnedMesh> meshes;  ///< one per skin some mesh node uses, in skin order
  std::vector<GltfClip> clips;
  std::vector<std::string> warnings;  ///< what was repaired (one line per kind of repair)
};

/// Reads a .glb or .gltf (external buffers relative to the file). Images are not decoded.
/// External buffers and images are read only when they resolve (symbolic links followed) to
/// regular files inside the file's own folder (input_reference.hpp): a buffer that does not is
/// an error naming it; an image that does not is left out, with a line in `warnings`.
/// @throws std::runtime_error naming the file, the object and the problem: not glTF / truncated
///         (tinygltf's message), a required extension fastcd cannot decode (Draco, meshopt),
///         out-of-range indices or accessors reading past their buffer view, non-finite values,
///         a mesh without POSITION, JOINTS_n without WEIGHTS_n, a joint index beyond the skin,
///         a vertex whose weights sum to 0, inverse bind matrices that are too few or not
///         affine, a node cycle, a mirrored joint (negative scale or determinant), key times not
///         increasing, CUBICSPLINE with one key, and no skinned mesh at all.
GltfCharacter read_gltf(const std::string& path);

/// The clip named `name`, or at index `name` when it is a non-negative integer.
/// @throws std::invalid_argument listing the clips when there is none such (or none at all).
int gltf_clip_index(const GltfCharacter& c, const std::string& name);

/// A channel's value at time t (clamped to the first/last key outside the keys): 3 numbers,
/// or a unit quaternion (x, y, z, w) for rotations (LINEAR: slerp the short way; CUBICSPLINE:
/// Hermite, then normalised).
Eigen::VectorXd gltf_sample(const GltfChannel& ch, double t);

/// Every node's global matrix at time t of clip `clip` (-1: the rest transforms).
/// @throws std::invalid_argument for a bad clip index.
std::vector<Eigen::Matrix4d> gltf_node_globals(const GltfCharacter& c, int clip, double t);

/// The LBS pose of a skinned mesh at time t: for each joint j the 3 x 4 affine
/// A_j = top rows of G(joint_j, t) * IBM_j, stacked column-major (12 numbers per joint, the
/// layout of lbs_jacobian), so positions are lbs_jacobian(mesh.V, mesh.W) * p.
VectorXd gltf_pose(const GltfCharacter& c, int mesh, int clip, double t);

/// The space Blender's glTF importer puts a skinned mesh's vertices in (io_scene_gltf2 3.4:
/// mark_bones_and_armas, pick_bind_pose, calc_bone_matrices, skin_into_bind_pose): the object's
/// own vertices are the bind-space POSITIONs skinned by each joint's guessed bind pose in its
/// armature's frame (from the inverse bind matrices, scale dropped) times its inverse bind
/// matrix, blended by the skin weights. For files whose inverse bind matrices match the rest
/// pose under an armature at the origin that is the identity; otherwise a point cache for the
/// imported object (a Mesh Cache modifier above its Armature modifier) must be in that space.
/// Returns one 3 x 4 affine per joint of `skin`, in glTF axes (Blender's are (x, -z, y)).
/// @throws std::invalid_argument for a bad skin index.
std::vector<Eigen::Matrix<double, 3, 4>> gltf_blender_joint_binds(const GltfCharacter& c, int skin);

/// Poses at t_k = k dt, k = 0 .. floor(duration / dt) (a clip of duration 0: one pose).
/// @throws std::invalid_argument if dt is not positive and finite or the clip is bad.
std::vector<VectorXd> gltf_sample_clip(const GltfCharacter& c, int mesh, int clip, double dt);

namespace detail {

/// A glTF file's parts as a writer that keeps them needs them.
struct GltfFileContents {
  std::string json;                  ///< the document (the .glb's JSON chunk, or the .gltf file)
  std::vector<std::string> buffers;  ///< every buffer's bytes (BIN chunk, data URI or file, resolved)
  std::vector<std::string> images;   ///< every image's encoded bytes, wherever the file keeps them
  /// One line per external image left out (outside the file's folder, missing, not a regular
  /// file): its entry in `images` is empty.
  std::vector<std::string> warnings;
};

/// Reads a .glb / .gltf into its parts (buffers and image URIs resolved as read_gltf does).
/// @throws std::runtime_error as read_gltf does for files that are not glTF.
GltfFileContents read_gltf_contents(const std::string& path);

}  // namespace detail

}  // namespace fastcd
