#pragma once
// A glTF 2.0 skinned character as a Scene: the skin welded and filled with tets (Netgen),
// its weights extended harmonically into the interior, one clip sampled at the simulation
// rate as LBS bone poses, and the render vertices (every glTF vertex, seams included) as the
// output surface, each on its welded tet vertex. Positions are simulated in world space
// (glTF Y up; the rig's poses place the bind-space mesh), normalised like every scene, with
// the material in physical units converted to the normalised frame.
#include <string>
#include <vector>

#include "fastcd/meshing/tetrahedralize.hpp"
#include "fastcd/scene/scene.hpp"

namespace fastcd {

struct GltfSceneOptions {
  std::string clip;            ///< clip name or index; "" = the first
  double dt = 1.0 / 60.0;      ///< simulation time step, s (the clip is sampled at it)
  double metres_per_unit = 1;  ///< the file's length unit in metres (glTF says metres; many files are not)
  double ym = 2e4;             ///< Young's modulus, Pa (soft tissue)
  double pr = 0.45;            ///< Poisson's ratio
  double rho = 1000;           ///< density, kg / m^3
  TetrahedralizeOptions tets;
};

/// True for a path ending in .glb or .gltf (any case).
bool is_gltf_file(const std::string& path);

/// Loads the character. Scene::ym is ym / L^2 and gravity must be divided by L, where
/// L = scene.scale * metres_per_unit is the length of one normalised unit in metres (the
/// equations of motion rho x'' = div sigma keep their physical time scales in the normalised
/// frame that way); Scene::metres_per_normalised_unit holds L. Scene::notes says what was done
/// (bounding box, weld, tets, weights).
/// @throws std::runtime_error naming the file and problem: read_gltf's errors, no clip, a skin
///         that does not bound a solid (open, non-manifold, self-intersecting: which edges or
///         triangles), a meshing failure, more than one skinned mesh (not yet supported).
Scene load_gltf_scene(const std::string& path, const GltfSceneOptions& options = {});

}  // namespace fastcd
