#pragma once
// Scenes of the Complementary Dynamics releases: a JSON file naming a mesh, handles, weights and
// a handle animation, plus material and time step. 2D: the MATLAB release
// (`examples/<name>/<name>_data/<name>.json`); 3D: the C++ release (`examples/<name>/<name>.json`).
#include <string>
#include <vector>

#include "fastcd/common/types.hpp"

namespace fastcd::io {

enum class HandleKind { Bones, Points };

struct Scene {
  std::string name;
  Index dim = 0;
  MatrixXd X;          ///< #V x dim rest positions, normalised: X = (X_file - center) / scale
  MatrixXi T;          ///< #T x (dim+1) simplices
  MatrixXi surface;    ///< boundary (3D: outward triangles) or, in 2D, the triangles themselves
  VectorXd center;     ///< dim, normalisation centre ((max + min) / 2 of the file's vertices)
  double scale = 1.0;  ///< normalisation scale (largest centred coordinate), as both releases do
  HandleKind kind = HandleKind::Bones;
  Index handles = 0;
  MatrixXd W;                   ///< #V x #handles LBS weights
  VectorXd rest_pose;           ///< identity pose (#handles * dim * (dim+1))
  std::vector<VectorXd> poses;  ///< rig parameters per animation frame (normalised coordinates)
  double dt = 0.01, ym = 1e5, pr = 0.0, rho = 1.0;
  std::string model = "arap";   ///< material the scene asks for (fastcd always simulates ARAP)
  bool with_dynamics = true;
  /// Optional render surface (3D): "render_mesh_file" in the JSON, else <mesh stem>.obj beside
  /// a .mesh file. Normalised like X and embedded in the tets (positions = render_E X).
  MatrixXd render_V;
  MatrixXi render_F;
  SparseMatrix render_E;
  double render_max_distance = 0.0;  ///< farthest render vertex from the tet mesh (normalised units)
  std::vector<std::string> warnings;  ///< things the user should know (e.g. model replaced by ARAP)
};

/// Loads a scene JSON (keys mesh_file, handle_file, weight_file, anim_file, dt, YM, pr, and
/// optionally model, with_dynamics; paths relative to the JSON's folder; 2D meshes are planar
/// OBJ, 3D meshes Medit .mesh / Gmsh .msh / TetGen .node). Handles come from the TGF (edges ->
/// bones with forward kinematics, none -> point handles), weights from the DMAT (one column per
/// point handle, then per bone), the animation from the release's text format.
/// @throws std::runtime_error naming the file and problem (missing keys or files, malformed
///         data, weights whose row count differs from the mesh, a cage rig — see issue "any rig").
Scene load_scene(const std::string& json_path);

}  // namespace fastcd::io
