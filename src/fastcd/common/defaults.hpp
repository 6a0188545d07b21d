#pragma once
// What a run uses when the user says nothing: the one place these values are written. The
// library's options (SceneRunSettings, GltfSceneOptions, SurfaceSceneOptions, VoxelOptions),
// the CLI's flags and help text (`fastcd run`, `fastcd view`), the Python signatures
// (`fastcd.defaults`, read by `fastcd.load_scene`, `fastcd.bake`, `fastcd.read_character`, ...)
// and the Blender add-on's properties all read them; docs/vocabulary.md lists them.
//
// Not here: the settings of the solvers' own constructors (CDOptions, Python's `Simulation`,
// `FullCD`, `ReducedCD`), which mirror simkit's tutorial 23 (dt 1e-2, ym 1e5, pr 0, rho 1e3,
// 10 modes, 20 clusters, the diffusion leak field), and a release scene's own keys.
namespace fastcd::defaults {

// ---- the solver (every input kind)
inline constexpr const char* solver = "full";              ///< fastcd run, fastcd.bake, fastcd.load_scene
inline constexpr const char* interactive_solver = "fast";  ///< fastcd view and the Blender add-on
inline constexpr int iterations = 10;                      ///< local/global iterations per step
inline constexpr int modes = 16;                           ///< fast solver: skinning eigenmodes
inline constexpr int clusters = 100;                       ///< fast solver: rotation clusters (capped at #T)
inline constexpr const char* precision = "double";         ///< fast solver: "double" or "mixed"
inline constexpr const char* leak = "auto";                ///< the momentum-leak field
inline constexpr double gravity = 0.0;                     ///< along -y (m/s^2 in physical units)

// ---- a character in physical units (glTF, a plain surface, a Blender object)
inline constexpr double dt = 1.0 / 60.0;        ///< s (the clip is sampled at it)
inline constexpr double ym = 2e4;               ///< Young's modulus, Pa (soft tissue)
inline constexpr double pr = 0.45;              ///< Poisson's ratio
inline constexpr double rho = 1000.0;           ///< density, kg / m^3
inline constexpr double metres_per_unit = 1.0;  ///< the file's length unit (glTF says metres)

// ---- filling a surface with tets
inline constexpr const char* mesher = "netgen";  ///< "netgen", "tetgen" or "voxel"
inline constexpr int voxel_resolution = 24;      ///< voxel mesher: cells along the longest side

// ---- a release scene without "rho" (the releases' mass matrices)
inline constexpr double scene_rho_2d = 1.0;     ///< the MATLAB release's unit density
inline constexpr double scene_rho_3d = 1000.0;  ///< the C++ release's lumped mass times 1000

// ---- glTF outputs
inline constexpr const char* glb_encoding = "frames";  ///< "frames" or "pca"
inline constexpr double pca_tolerance = 1e-4;          ///< pca: largest error relative to the size

}  // namespace fastcd::defaults
