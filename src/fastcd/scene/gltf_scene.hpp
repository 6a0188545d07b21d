#pragma once
// A glTF 2.0 skinned character as a Scene: every skin (the mesh nodes it deforms) welded and
// filled with tets shell by shell (Netgen), its weights extended harmonically into the
// interior, one clip sampled at the simulation rate as LBS bone poses, and the render vertices
// (every glTF vertex, seams included) as the output surface, each on its welded tet vertex.
// Several skins (separate skeletons, or one skeleton bound twice) are separate bodies in one
// scene: their tets stacked, their joints one after another in the rig, the weights
// block-diagonal, so they move with the clip but share no tissue. Positions are simulated in world space
// (glTF Y up; the rig's poses place the bind-space mesh), normalised like every scene, with
// the material in physical units converted to the normalised frame.
#include <string>
#include <vector>

#include "fastcd/io/gltf_write.hpp"
#include "fastcd/meshing/tetrahedralize.hpp"
#include "fastcd/meshing/voxel.hpp"
#include "fastcd/scene/scene.hpp"

namespace fastcd {

struct GltfSceneOptions {
  std::string clip;          ///< clip name or index; "" = the first
  double dt = defaults::dt;  ///< simulation time step, s (the clip is sampled at it)
  double metres_per_unit =
      defaults::metres_per_unit;  ///< the file's length unit in metres (glTF says metres; many files are not)
  double ym = defaults::ym;       ///< Young's modulus, Pa (soft tissue)
  double pr = defaults::pr;       ///< Poisson's ratio
  double rho = defaults::rho;     ///< density, kg / m^3
  TetrahedralizeOptions tets;     ///< tets.mesher "netgen", "tetgen" or "voxel" (voxel_mesh with `voxel`)
  VoxelOptions voxel;
  /// Folder of cached tet meshes (tetrahedralize_cached); "" meshes every time.
  std::string cache_dir;
};

/// One skinned surface of a character given as data (a glTF skin's mesh nodes, a Blender mesh
/// object): render vertices in file units (bind space), triangles, and skin weights on its own
/// joints (#V x joints, each row a partition of unity).
struct SkinnedSurface {
  std::string label;  ///< for messages and notes: "'fox' + 'eye'", "object 'Body'"
  MatrixXd V;         ///< #V x 3
  MatrixXi F;         ///< #F x 3
  MatrixXd W;         ///< #V x its joints
  VectorXd leak;      ///< optional #V painted leak field in [0, 1] (Scene::leak_values inside)
};

/// A skinned, animated character as data: its skins (each its own body and joints; the joints
/// numbered skin after skin) and one pose per simulation step.
struct SkinnedCharacter {
  std::string name;
  std::string layout = "skinned";  ///< Scene::layout ("gltf" for load_gltf_scene)
  std::vector<SkinnedSurface> skins;
  /// Per step (dt apart), 12 entries per joint: the column-major 3x4 [A | t] taking bind-space
  /// points (file units) to their posed place, x = sum_j w_j (A_j X + t_j). The first is where
  /// the simulation starts, at rest.
  std::vector<VectorXd> poses;
  MatrixXd joint_points;  ///< #joints x 3 bind-pose joint positions (file units) for drawing; may be empty
};

/// The Scene of a character given as data, as load_gltf_scene makes it from a file: every skin
/// welded and filled with tets (o.tets / o.voxel, cached in o.cache_dir), its weights carried
/// inside, normalised, with the material in physical units (o.metres_per_unit); o.clip unused.
/// `source` starts every error message ("Blender object 'Body'").
/// @throws std::runtime_error "<source>: ..." for bad shapes, NaN, weights that are not a
///         partition of unity (naming the vertex), poses of the wrong size, a skin that does not
///         bound a solid, a meshing failure.
Scene skinned_scene(const SkinnedCharacter& character, const GltfSceneOptions& options, const std::string& source);

/// True for a path ending in .glb or .gltf (any case).
bool is_gltf_file(const std::string& path);

/// Loads the character. Scene::ym is ym / L^2 and gravity must be divided by L, where
/// L = scene.half_extent * metres_per_unit is the length of one normalised unit in metres (the
/// equations of motion rho x'' = div sigma keep their physical time scales in the normalised
/// frame that way); Scene::metres_per_normalised_unit holds L. Scene::notes says what was done
/// (bounding box, weld, tets, weights).
/// @throws std::runtime_error naming the file and problem: read_gltf's errors, no clip, a skin
///         that does not bound a solid (open, non-manifold, self-intersecting: which edges or
///         triangles), a meshing failure.
Scene load_gltf_scene(const std::string& path, const GltfSceneOptions& options = {});

/// One mesh node's rest-space point caches.
struct GltfCache {
  int node = -1;          ///< the glTF node (a mesh node of a skin)
  int skinned_mesh = -1;  ///< ... of GltfCharacter::meshes[skinned_mesh]
  /// How far (file units) the space of the imported object's vertices (gltf_blender_joint_binds)
  /// puts them from POSITION at rest: 0 when the cache is plain POSITION + delta.
  double bind_offset = 0;
  std::string node_name;   ///< its name in the file (Blender names the imported object so)
  Index first_vertex = 0;  ///< its first vertex among the render vertices (every skinned mesh's, in file order)
  Index vertices = 0;      ///< its vertices: its primitives' one after another, as Blender imports them
  std::string pc2, mdd;    ///< the paths written
};

/// What write_gltf_outputs wrote.
struct GltfOutputs {
  std::string glb;                ///< the path written
  std::vector<GltfCache> caches;  ///< one per skinned mesh node, in file order
  std::string pc2, mdd;           ///< the first node's caches (the only ones for a single-node character)
  std::string clip;               ///< the baked clip's name (as read_gltf names it)
  int clip_index = 0;             ///< ... and its index among the file's animations
  GltfBakeReport report;          ///< the .glb's encoding
  double worst_condition = 1;     ///< largest condition number of a blended skinning 3x3
};

/// The glTF outputs of a simulated glTF scene, into `dir`, for clip `clip` ("": the scene's own,
/// Scene::clip):
/// - <name>.glb: the input with the clip resampled and the secondary motion as rest-space morph
///   targets (write_gltf_bake);
/// - rest_space.pc2 and rest_space.mdd (rest_space_<node name>.pc2 / .mdd, one pair per mesh
///   node, when the file has several skinned mesh nodes: Blender imports each as an object; a
///   name over 100 characters is cut and given the node's index):
///   POSITION + delta per frame for each of the node's vertices, in the space Blender's importer
///   gives the object's own vertices (gltf_blender_joint_binds; POSITION itself for most files)
///   and Blender's Z-up frame
///   ((x, y, z) -> (x, -z, y), as its glTF importer converts), for a Mesh Cache modifier placed
///   *above* the Armature modifier of the imported object (the rig stays live; the cache
///   carries only what the simulation adds).
/// @param U  per frame, #render_V x 3 complementary displacements in file units (simulated minus
///           rig positions of the render vertices: every skinned mesh's, in file order).
/// @throws std::invalid_argument for a scene not loaded by load_gltf_scene or mismatched sizes;
///         write_gltf_bake's and lbs_rest_space_displacements' errors.
GltfOutputs write_gltf_outputs(const Scene& scene, const std::string& clip, const std::vector<MatrixXd>& U,
                               const std::string& dir, const GltfBakeOptions& options = {});

}  // namespace fastcd
