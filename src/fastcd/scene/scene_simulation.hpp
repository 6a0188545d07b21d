#pragma once
// From a loaded Scene to a ready Simulation, and from simulated positions back to the scene
// file's units and output surface: the pieces `fastcd run`, the Python `fastcd.load_scene` and
// the tests share.
#include <string>

#include "fastcd/cd/leak_field.hpp"
#include "fastcd/common/defaults.hpp"

#include "fastcd/cd/simulation.hpp"
#include "fastcd/scene/scene.hpp"

namespace fastcd {

/// What `fastcd run` (and Python's fastcd.load_scene) set on top of a scene's own settings.
struct SceneRunSettings {
  SolverKind solver = SolverKind::Full;
  int iterations = defaults::iterations;
  int modes = defaults::modes;        ///< fast solver
  int clusters = defaults::clusters;  ///< fast solver; at most the element count
  std::string leak = defaults::leak;  ///< see leak_field_options; "painted": the scene's leak_values
  /// Along the file's -y axis: m / s^2 for a scene in physical units (glTF characters, plain
  /// surfaces: Scene::metres_per_normalised_unit > 0), else normalised units / s^2.
  double gravity = defaults::gravity;
  bool dynamics = true;  ///< false: bake the rig alone
  /// The fast solver's arithmetic (CDOptions::precision); the full solver always runs in double,
  /// so this applies to fast simulations only.
  Precision precision = Precision::Double;
};

/// Young's modulus as the solvers take it, for the normalised mesh: `ym` (as the scene gives it:
/// Pa for a scene in physical units) over L^2, L = Scene::metres_per_normalised_unit, for a glTF
/// character or a plain surface; `ym` itself for the releases' scenes, whose YM already acts on the
/// normalised mesh. run.json records both (settings "ym" and "ym_normalised").
double normalised_ym(const Scene& scene, double ym);

/// The scene's own settings as simulation options (dt, ym (normalised_ym), pr and rho from the
/// scene; dynamics off when it says "with_dynamics": 0) with `run` on top.
/// @throws std::invalid_argument for a bad leak setting (see leak_field_options).
SimulationOptions scene_simulation_options(const Scene& scene, const SceneRunSettings& run = {});

/// A Simulation of the scene's mesh under its rig (`scene.rig`) with `options`.
/// @throws as Simulation's constructor.
Simulation make_simulation(const Scene& scene, const SimulationOptions& options);

/// Parses a leak-field setting: "auto" (the releases' Poisson field, Zhang et al. 2020, with the
/// Centroid field instead on a boundary-dominated mesh where it would leave the rig less
/// constrained: see LeakFieldOptions::boundary_fallback), "poisson", "diffusion" (simkit,
/// tutorial 23), "centroid", "none" (D = 1), or the path of a #V x 1 DMAT of values in [0, 1].
/// @throws std::invalid_argument for a DMAT of the wrong shape or values outside [0, 1];
///         std::runtime_error when the file cannot be read.
LeakFieldOptions leak_field_options(const std::string& spec, Index num_vertices);

/// Gravity g along the file's -y axis (dim entries); empty for g = 0.
VectorXd gravity_vector(Index dim, double g);

/// The mesh that is baked: the scene's render surface embedded in the tets (render_E), or the
/// simulation mesh's own surface with its vertices re-indexed. Baked positions are E * X.
struct OutputSurface {
  SparseMatrix E;  ///< #out x #V
  MatrixXi F;      ///< #faces x (2D: 3 triangles; 3D: 3 boundary triangles)
};
OutputSurface output_surface(const Scene& scene);

/// Positions X (#V x dim, normalised simulation coordinates) of the output surface in the
/// scene file's units.
MatrixXd to_file_units(const Scene& scene, const OutputSurface& surface, const Eigen::Ref<const MatrixXd>& X);

}  // namespace fastcd
