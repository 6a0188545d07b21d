#pragma once
// Scenes of the Complementary Dynamics releases (Zhang et al. 2020): a JSON file naming a mesh,
// handles, weights and a handle animation, plus material and time step. 2D: the MATLAB release
// (`examples/<name>/<name>_data/<name>.json`); 3D: the C++ release (`examples/<name>/<name>.json`).
// scene_simulation.hpp turns a Scene into a ready Simulation and bakes back to file units.
#include <memory>
#include <string>
#include <vector>

#include "fastcd/cd/rig.hpp"
#include "fastcd/common/defaults.hpp"
#include "fastcd/common/types.hpp"

namespace fastcd {

enum class HandleKind { Bones, Points, Cage };

struct Scene {
  std::string name;
  /// "matlab-2d", "cpp-3d", "matlab-2d-cage", "matlab-2d-vertex-handles", "vertex-handles" (3D),
  /// "surface" (a surface mesh filled with tets) or "gltf"
  std::string layout;
  Index dim = 0;
  MatrixXd X;        ///< #V x dim rest positions, normalised: X = (X_file - center) / half_extent
  MatrixXi T;        ///< #T x (dim+1) simplices
  MatrixXi surface;  ///< boundary (3D: outward triangles) or, in 2D, the triangles themselves
  VectorXd center;   ///< dim, normalisation centre ((max + min) / 2 of the file's vertices)
  /// Half the largest side of the file's bounding box (the largest centred coordinate), in file
  /// units: one normalised unit, as both releases normalise (their `Vbound`).
  double half_extent = 1.0;
  HandleKind kind = HandleKind::Bones;
  Index handles = 0;
  MatrixXd W;              ///< #V x #handles LBS weights (cage: the cage coordinates)
  MatrixXd handle_points;  ///< rest point handles / cage vertices (#handles x dim, normalised)
  MatrixXi cage_edges;     ///< cage boundary (2D: edges of the closed polygon), empty otherwise
  VectorXi fixed;          ///< vertices held on the rig (u_c = 0): the scene's fixed region
  /// The rig the scene is simulated with; its parameters are `poses`:
  /// - "lbs": LBS with affine bones/handles (the releases' rig; rest_pose = identity per handle;
  ///   glTF: the clip's first frame, where the simulation starts at rest);
  /// - "cage (mean value)" / "cage (harmonic)": p = cage vertex positions (#handles*dim);
  /// - "wire": the daisy's Catmull-Rom wire through the point handles, p = handle positions.
  std::shared_ptr<const Rig> rig;
  VectorXd rest_pose;           ///< the rig's rest parameters
  std::vector<VectorXd> poses;  ///< rig parameters per animation frame (normalised coordinates)
  std::string clip;             ///< glTF: the index of the clip the poses sample (as text)
  Index frames_declared = -1;   ///< "frame_num" of the JSON (-1 when absent)
  double dt = 0.01;             ///< s
  /// Young's modulus as given: Pa for a glTF character or a plain surface (the solvers take
  /// normalised_ym(scene, ym) = ym / metres_per_normalised_unit^2), the releases' YM (acting on the
  /// normalised mesh) for their scenes.
  double ym = 1e5;
  double pr = 0.0;   ///< Poisson's ratio: ARAP's mu = ym / (2 (1 + pr)) (ympr_to_lame)
  double rho = 1.0;  ///< density (kg/m^3 for a character; per normalised volume for the releases' scenes)
  /// The material the scene asks for ("material", or the releases' "model"); fastcd simulates ARAP,
  /// and loads another only when SceneOptions::material says to run it as ARAP.
  std::string material = "arap";
  bool with_dynamics = true;
  /// Optional render surface (3D): "render_mesh_file" in the JSON, else <mesh stem>.obj beside
  /// a .mesh file. Normalised like X and embedded in the tets (positions = render_E X, exact at
  /// rest: the embedding never moves a vertex).
  MatrixXd render_V;
  MatrixXi render_F;
  SparseMatrix render_E;
  VectorXi render_element;           ///< #render_V: the tet each render vertex is embedded in
  double render_max_distance = 0.0;  ///< farthest render vertex from the tet mesh (normalised units)
  /// glTF: the render vertices' own skin weights (#render_V x #handles). When set, the baked
  /// surface is their LBS under the scene's poses plus the embedded complementary displacement
  /// render_E u_c, exactly what the baked .glb plays (the tets' fitted or welded weights drive
  /// only the simulation).
  MatrixXd render_W;
  /// The OBJ whose `v` records are the baked surface's vertices (the render mesh, or a 2D
  /// scene's own OBJ mesh): a bake rewrites its positions and keeps everything else (UVs,
  /// normals, groups, materials). Empty when the baked surface is the tets' boundary.
  std::string output_obj;
  std::vector<std::string> input_files;  ///< every file the scene read (absolute, normalised)
  std::vector<std::string> warnings;     ///< things the user should know (renormalised weights, ...)
  std::vector<std::string> notes;        ///< what loading did (glTF: weld, tets, weights), for the log
  /// A leak field painted on the input (a Blender vertex group): #V values in [0, 1] on the tet
  /// vertices (the surface's own, harmonic inside); the run's leak setting "painted" uses it.
  VectorXd leak_values;
  /// Metres per normalised unit when the scene is in physical units (glTF characters, plain
  /// surfaces): file_units_per_normalised_unit * metres_per_unit; 0 for the releases' scenes, whose
  /// material and gravity are given in normalised units.
  double metres_per_normalised_unit = 0;
};

/// Loads a scene JSON; docs/scene-format.md lists every key, its type, units, default and which
/// release uses it. Layouts:
/// - 2D MATLAB release: `mesh_file` (planar OBJ), `handle_file` (TGF: bones with forward
///   kinematics, or point handles), `weight_file` (DMAT, one column per point handle, then per
///   bone; optional: automatic biharmonic weights), `anim_file` (the release's text format);
/// - 2D MATLAB release, vertex handles (the hedgehog): `constraint_file` (DMAT of 1-based vertex
///   indices, each a point handle) and `anim_file` a DMAT of per-frame affine handle transforms
///   (#frames x #handles*6, gptoolbox lbs_matrix_column order);
/// - 2D MATLAB release, cage (the walrus): `skeleton_file` (closed cage polygon, TGF), no
///   `handle_file`, `anim_file` a DMAT of #frames x 2*#C cage positions [x_0.., y_0..];
/// - 3D C++ release: `mesh_file` (Medit .mesh; .msh and TetGen .node also work), `handle_file`,
///   `weight_file`, `anim_file` (bone or point-handle animation), `model` (the release's name for
///   `material`);
/// - a closed triangle surface as `mesh_file` (a 3D OBJ, OFF or PLY): filled with tets
///   (tetrahedralize_shells with `mesher` netgen / tetgen, or voxel_mesh; SceneOptions::mesher
///   overrides), its vertices the ones `weight_file` (rows), `constraint_file` and
///   `fixed_region_file` count, the weights carried inside harmonically; the surface itself
///   (an OBJ's UVs, normals and materials kept) is the baked output;
/// - a glTF character (`character_file`, with `clip`, `metres_per_unit`, and YM, pr, rho in
///   physical units, all optional): load_gltf_scene; a .glb / .gltf path itself loads the same
///   way with the defaults.
/// Common keys: `dt`, `YM`, `pr` (required; `mu` and `lambda` may replace YM and pr), `rho`
/// (default: 1 in 2D, 1000 in 3D, as the releases' mass matrices),
/// `with_dynamics`, `frame_num` (at most that many frames; a warning when the animation has
/// fewer), `fixed_region_file` (1-based vertex indices held on the rig; `<mesh
/// stem>_fixed_region.dmat` beside the mesh is read too), `render_mesh_file`, `scale` (the C++
/// release reads it and never uses it: ignored, with a warning when it is not 1). File weights must be a partition of
/// unity: rows within 1e-4 of 1 (tiny negatives down to -1e-4 clamped) are renormalised with one warning; others are an
/// error naming the vertex.
/// @throws std::runtime_error naming the file and problem (unknown keys with the nearest valid
///         key, missing keys or files, malformed data, weights that are not a partition of
///         unity, a mesh component no handle reaches, a material fastcd does not simulate unless
///         SceneOptions::material says to run it as ARAP, a rig option the scene cannot use, a
///         rig too large for the memory).
struct SceneOptions {
  /// "auto" (the scene's own rig: LBS for bones and point handles, mean value coordinates for
  /// a cage), "lbs", "wire" (2D point handles only), "mvc" or "harmonic" (cages only).
  std::string rig = "auto";
  int harmonic_resolution = 128;  ///< grid cells along the cage's longest side
  /// "" (a scene asking for another material than ARAP is refused) or "arap" (run it as ARAP,
  /// with a warning).
  std::string material;
  /// A surface mesh (or a glTF character) is filled with tets by this mesher: "" (the scene's
  /// "mesher", default netgen), "netgen", "tetgen" or "voxel".
  std::string mesher;
  int voxel_resolution = 0;  ///< voxel mesher: cells along the longest side (0: the scene's, default 24)
  std::string cache_dir;     ///< folder of cached tet meshes (tetrahedralize_cached); "" meshes every time
};

Scene load_scene(const std::string& path, const SceneOptions& options = {});

/// True for a path ending in .obj, .off or .ply (any case): a surface load_surface_scene reads.
bool is_surface_file(const std::string& path);

/// A plain closed surface driven by handles, without a scene JSON (fastcd run spot.obj
/// --handles spot.tgf --anim spot_anim.txt): what a scene naming the surface as its
/// "mesh_file" loads, with the material in physical units as for glTF characters.
struct SurfaceSceneOptions {
  std::string handles;       ///< TGF of point handles or bones (file units), required
  std::string animation;     ///< the releases' 3D bone or point-handle animation, required
  std::string weights;       ///< DMAT, one row per surface vertex; "" = automatic biharmonic weights
  double dt = defaults::dt;  ///< s
  double metres_per_unit = defaults::metres_per_unit;  ///< the surface's length unit in metres
  double ym = defaults::ym;                            ///< Young's modulus, Pa
  double pr = defaults::pr;                            ///< Poisson's ratio
  double rho = defaults::rho;                          ///< kg / m^3
};

/// Loads a surface scene. Scene::ym is `o.ym` (Pa) and Scene::metres_per_normalised_unit is L
/// (file_units_per_normalised_unit * metres_per_unit), as load_gltf_scene does: the solvers take
/// ym / L^2 (normalised_ym), gravity / L.
/// @throws std::runtime_error as load_scene, and for missing handles or animation.
Scene load_surface_scene(const std::string& surface, const SurfaceSceneOptions& o, const SceneOptions& options = {});

/// The keys load_scene accepts (for messages and docs).
const std::vector<std::string>& scene_keys();

}  // namespace fastcd
