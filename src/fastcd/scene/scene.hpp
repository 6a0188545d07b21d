#pragma once
// Scenes of the Complementary Dynamics releases (Zhang et al. 2020): a JSON file naming a mesh,
// handles, weights and a handle animation, plus material and time step. 2D: the MATLAB release
// (`examples/<name>/<name>_data/<name>.json`); 3D: the C++ release (`examples/<name>/<name>.json`).
// scene_simulation.hpp turns a Scene into a ready Simulation and bakes back to file units.
#include <memory>
#include <string>
#include <vector>

#include "fastcd/cd/rig.hpp"
#include "fastcd/common/types.hpp"

namespace fastcd {

enum class HandleKind { Bones, Points, Cage };

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
  MatrixXd W;              ///< #V x #handles LBS weights (cage: the cage coordinates)
  MatrixXd handle_points;  ///< rest point handles / cage vertices (#handles x dim, normalised)
  MatrixXi cage_edges;     ///< cage boundary (2D: edges of the closed polygon), empty otherwise
  /// The rig the scene is simulated with; its parameters are `poses`:
  /// - "lbs": LBS with affine bones/handles (the releases' rig; rest_pose = identity per handle);
  /// - "cage (mean value)" / "cage (harmonic)": p = cage vertex positions (#handles*dim);
  /// - "wire": the daisy's Catmull-Rom wire through the point handles, p = handle positions.
  std::shared_ptr<const Rig> rig;
  VectorXd rest_pose;           ///< the rig's rest parameters
  std::vector<VectorXd> poses;  ///< rig parameters per animation frame (normalised coordinates)
  double dt = 0.01, ym = 1e5, pr = 0.0, rho = 1.0;
  std::string model = "arap";  ///< material the scene asks for (fastcd always simulates ARAP)
  bool with_dynamics = true;
  /// Optional render surface (3D): "render_mesh_file" in the JSON, else <mesh stem>.obj beside
  /// a .mesh file. Normalised like X and embedded in the tets (positions = render_E X).
  MatrixXd render_V;
  MatrixXi render_F;
  SparseMatrix render_E;
  double render_max_distance = 0.0;   ///< farthest render vertex from the tet mesh (normalised units)
  std::vector<std::string> warnings;  ///< things the user should know (e.g. model replaced by ARAP)
};

/// Loads a scene JSON (keys mesh_file, handle_file, weight_file, anim_file, dt, YM, pr, and
/// optionally model, with_dynamics; paths relative to the JSON's folder; 2D meshes are planar
/// OBJ, 3D meshes Medit .mesh / Gmsh .msh / TetGen .node). Handles come from the TGF (edges ->
/// bones with forward kinematics, none -> point handles), weights from the DMAT (one column per
/// point handle, then per bone), the animation from the release's text format.
/// A 2D scene with "skeleton_file" naming a closed cage polygon (TGF) and no "handle_file" is a
/// cage scene (the 2020 release's walrus): "anim_file" is then a DMAT of #frames x 2*#C cage
/// positions [x_0..x_{C-1}, y_0..y_{C-1}] in normalised coordinates.
/// @throws std::runtime_error naming the file and problem (missing keys or files, malformed
///         data, weights whose row count differs from the mesh, a rig option the scene cannot use).
struct SceneOptions {
  /// "auto" (the scene's own rig: LBS for bones and point handles, mean value coordinates for
  /// a cage), "lbs", "wire" (2D point handles only), "mvc" or "harmonic" (cages only).
  std::string rig = "auto";
  int harmonic_resolution = 128;  ///< grid cells along the cage's longest side
};

Scene load_scene(const std::string& json_path, const SceneOptions& options = {});

}  // namespace fastcd
