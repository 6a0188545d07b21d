#pragma once
// The pieces load_scene is made of, private to src/fastcd/scene (no other folder includes this):
// scene_keys.cpp reads the JSON's keys and values, scene_mesh.cpp the mesh (a tet or 2D mesh,
// or a surface filled with tets), the fixed region and the render mesh, scene_rig.cpp the
// handles, weights, animation and the rig; scene.cpp assembles a Scene from them.
#include <filesystem>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>

#include "fastcd/scene/scene.hpp"

namespace fastcd::scene_parts {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------- keys (scene_keys.cpp)

/// Throws std::runtime_error "load_scene: '<path>': <what>".
[[noreturn]] void fail(const std::string& path, const std::string& what);
/// A number as the messages print it (ostream's shortest form).
std::string fmt(double v);
/// Fails on a key no scene has, naming the valid key it most likely meant.
void check_keys(const nlohmann::json& j, const std::string& path);
/// j[key] as a number (`fallback` when absent); fails when it is not a number.
double number(const nlohmann::json& j, const char* key, double fallback, const std::string& path);
/// j[key] as a number; fails naming `what` when it is absent.
double required_number(const nlohmann::json& j, const char* key, const std::string& what, const std::string& path);
/// The file the first present key of `keys` names, relative to `dir` (or its parent, as the MATLAB
/// release's scripts run), recorded in s.input_files; "" when none is present and !required.
std::string file_key(Scene& s, const nlohmann::json& j, std::initializer_list<const char*> keys, const fs::path& dir,
                     const std::string& path, bool required = true);

// ---------------------------------------------------------------------------- meshes (scene_mesh.cpp)

/// A closed triangle surface given as the scene's mesh (a 3D OBJ, OFF or PLY), filled with tets:
/// the scene's vertex-indexed files (weights, handle vertices, fixed region) count the
/// surface's own vertices, which this maps onto the tets.
struct SurfaceSource {
  bool active = false;
  std::string file;
  MatrixXd V;  ///< the file's vertices (file units)
  MatrixXi F;  ///< its triangles
  bool voxel = false;
  VectorXi weld;     ///< Netgen / TetGen: tet vertex of each surface vertex
  SparseMatrix E;    ///< voxel: the surface vertices in the tets (barycentric rows)
  VectorXi element;  ///< voxel: their tets
  double max_distance = 0;

  /// The tet vertex standing for surface vertex v (voxel: its heaviest corner).
  Index tet_vertex(Index v) const {
    if (!voxel) return weld[v];
    Index best = -1;
    double w = -1e300;
    for (SparseMatrix::InnerIterator it(E, v); it; ++it)
      if (it.value() > w) w = it.value(), best = it.col();
    return best;
  }
};

/// The file's extension in lower case (".obj").
std::string lower_extension(const std::string& file);
/// Reads the scene's mesh_file into s (X, T, surface, dim; output_obj for an OBJ that is baked):
/// a tet or 2D mesh, or a closed surface filled with tets (then the returned source is active).
SurfaceSource read_mesh_file(Scene& s, const std::string& mesh_file, const std::string& path, const nlohmann::json& j,
                             const SceneOptions& opt);
/// Normalises s.X as both releases do (bounding-box centre, largest centred coordinate).
void normalize_scene(Scene& s, const std::string& json_path);
/// 1-based vertex indices (a MATLAB DMAT) -> 0-based, each checked.
VectorXi vertex_indices(const MatrixXd& A, Index n, const std::string& file, const char* what);
/// The fixed region (fixed_region_file or <mesh stem>_fixed_region.dmat) into s.fixed.
void load_fixed_region(Scene& s, const nlohmann::json& j, const fs::path& dir, const std::string& json_path,
                       const std::string& mesh_file, const SurfaceSource& src);
/// The render mesh embedded in the tets (render_mesh_file, <mesh stem>.obj, or the surface itself).
void load_render_mesh(Scene& s, const nlohmann::json& j, const fs::path& dir, const std::string& json_path,
                      const std::string& mesh_file, const SurfaceSource& src);

// ---------------------------------------------------------------------------- rigs and weights (scene_rig.cpp)

/// The walrus's layout: a closed cage polygon and its animation (sets s.rig).
void load_cage(Scene& s, const nlohmann::json& j, const fs::path& dir, const std::string& json_path,
               const SceneOptions& opt);
/// The hedgehog's layout: point handles at mesh vertices, per-frame affine transforms.
void load_vertex_handles(Scene& s, const nlohmann::json& j, const fs::path& dir, const std::string& json_path,
                         const SurfaceSource& src);
/// Both releases' layout: a TGF of bones or point handles, weights (file or automatic), animation.
void load_tgf_handles(Scene& s, const nlohmann::json& j, const fs::path& dir, const std::string& json_path,
                      const SurfaceSource& src);
/// The rig of a bone or point-handle scene: LBS, or (rig option "wire") the daisy's wire through
/// the point handles, its poses turned into handle positions.
void make_rig(Scene& s, const std::string& rig_opt, const std::string& json_path);

}  // namespace fastcd::scene_parts
